"""GitHub Copilot CLI: one `events.jsonl` per session under `$COPILOT_HOME/session-state/<uuid>/`.

What it writes: an append-only event log (`{type, data, id, parentId, timestamp, agentId?}`)
and a tiny `workspace.yaml` beside it (`name` is the first prompt or the `/rename` name).
Sub-agents live inside the parent's log: their events carry `agentId` (older builds only
`data.parentToolCallId`), and `subagent.started.toolCallId` names the spawning `task` call.
Files from 0.0.342 to about 1.0.10 are flat `session-state/<uuid>.jsonl`; both are read, and
so are the one-document sessions of earlier builds, `history-session-state/*.json`
(`_copilot_history`).

What we read: `session.start`/`session.resume` (id, cwd, branch, model, version) and
`session.context_changed` (a new folder or branch mid-session), the
conversation events, and `workspace.yaml` (title; parsed line-wise, no YAML dependency).
Sub-agents are not listed as sessions (they have no file of their own); their events come
with `agent_id`.

Forks (`/fork` in the TUI, 1.0.102; no headless form): a new `session-state/<uuid>/` whose
log opens with its own `session.start` (dated now), then the origin's events copied verbatim
(their ids and older times kept), then a `session.info` `infoType: fork` whose message names
the origin and the fork by id (the origin gets one naming only the fork). An event dated
before the first `session.start` marks a fork when listing; that notice gives
`extra["forked_from_id"]`. The copies are shown, after a `meta` note naming the origin, and bill nothing again: their usage is
left to the origin (an event dated before the fork began, as pi's are).

Usage: builds from 1.0.102 write one `session.usage_record` per model call (the `usage` of
`assistant.usage`, de-duplicated by `apiCallId`): one usage event each. Older builds wrote
token totals only in `session.shutdown.modelMetrics` (cumulative since the session began,
as 1.0.102 shows across a resume): when a segment has no per-call record, each shutdown
yields one usage event per model, the increase since the previous shutdown, dated at the
shutdown; a crashed session without shutdown has no usage, and a read from an offset skips
these totals (the previous shutdown is unseen). Copilot's `inputTokens` counts cache reads
and writes; we subtract them (`tokenDetails.input` is already net). A compaction's own
model call (`compactionTokensUsed`) is one more usage event where per-call records are
written, unless one of them names its `requestId` already.

A `user.message` whose `source` is not the user (a skill's hidden prompt `skill-<name>`,
`system`, `autopilot`, discovered instructions) or that is a `<system_notification>` is
harness text: a `user` event with `extra["injected"]`, never the title.

Resume: `copilot --resume <id>` (the form the 1.0.102 runs used) with `--model` and
`--reasoning-effort` (the last a model change, `session.start` or `session.resume` named;
the last two carry it in the SDK's event schema). Allow All (`--allow-all` at start, `/allow-all` or `/permissions`
later) is a `session.permissions_changed` (`allowAllPermissions`, true or false); 1.0.102
reopens a session at the last one by itself, and no flag or COPILOT_ALLOW_ALL value lowers
it, so such a session is refused unless `--keep-permissions` (`restores_looser`). Found in
a long session's unread middle too (`files.lines_with`; one over 256 MB by `resume`). A `copilot` on PATH that is AWS
Copilot CLI's (a Go program) is never run (`resume_program`).

HydraFusion turns (1.0.102: several models answer one prompt) are notes: the route
(`session.fusion_resolved`, or `session.fusion_route_failed` and its fallback), each
phase's end with what its model wrote (`content`, a critic's `verdict`) and the outcome (`session.fusion_completed`). Its token sums are not billed:
usage comes from the per-call `session.usage_record`s (no real fusion log was seen, so
whether each phase's calls get one is not known). The answer it commits is an
`assistant.message`. A `session.model_deselected` (its provider withdrew the model) leaves
the session without one: `resume` passes none, and Copilot asks for one.

Ignored, on purpose: system prompts, hooks, permission prompts and their bookkeeping, UI
and telemetry events, receipts (`_IGNORED`). Everything else unknown is counted by
diagnostics; 1.0.102's own `schemas/session-events.schema.json` lists what it writes.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Unpack

import orjson

from .. import files, folders, programs
from ..diagnostics import ODD_COUNT, Diagnostics
from ..model import Event, EventKind, JSONValue, ResumePlan, Session, Usage
from . import _copilot_history
from ._values import (
    Emitter,
    EventFields,
    as_dict,
    as_int,
    as_str,
    copied_note,
    decoded_size,
    epoch_or_iso_time,
    line_start,
    odd_count,
    one_line,
    shown_arguments,
    shown_json,
    shown_text,
    type_tag,
)
from .base import Home, Location, Opened, ResumeFlags, opened_by_flags

NAME = "copilot"
# `copilot --resume <id>` finds a session in `session-state/` from any folder
RESUMES_ANYWHERE = True
TITLE = "GitHub Copilot CLI"
SUBAGENTS_INSIDE = True  # a sub-agent kept in its lead's file, listed as none
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "copilot 1.0.11 - 1.0.102; 1.0.102's durable event types from the session-events "
    "schema its npm package ships; resume checked against 1.0.102's --help, `/fork` in its TUI, "
    "`--mode plan|interactive|autopilot` on a resume, the agent mode and Allow All it "
    "restores (1.0.102 run here); "
    "history-session-state/ of builds before 0.0.342 from third-party readers (synthetic)"
)
NEWEST_CHECKED = "1.0.102"  # doctor names versions past it
ENV_VARS = ("COPILOT_HOME", "XDG_STATE_HOME")
# its program, as `resume` runs it: `watch` shows a copy running with no session yet
CLI = ("copilot",)

# how a running copilot says which session it has open (1.0.102's --help)
RESUME_FLAGS = ResumeFlags(resume=("-r", "--resume"), new_id=("--session-id",))
# the start of a session id `--resume` takes for one (a name otherwise)
_ID_START = re.compile(r"[0-9a-f][0-9a-f-]{6,35}")


_EVENTS = "events.jsonl"
# `/fork` writes a `session.info` (`infoType: fork`) into both sessions, naming their ids
_INFO_TYPE = b'"infoType"'
_PERMISSIONS_CHANGED = b'"session.permissions_changed"'
_NAMED_ID = re.compile(
    r"\(([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\)"
)
# `user.message.source` values that are the user (or another agent prompting a sub-agent)
_TYPED_SOURCES = frozenset({"", "user"})
_WORKSPACE = "workspace.yaml"
_WORKSPACE_CAP = 256 * 1024

# Known record types that carry nothing a reader of the conversation needs.
_IGNORED = frozenset(
    {
        "system.message",
        "system.notification",
        "assistant.turn_start",
        "assistant.intent",
        "assistant.idle",
        "assistant.message_start",
        "assistant.message_delta",
        "assistant.reasoning_delta",
        "assistant.streaming_delta",
        "assistant.tool_call_delta",
        "assistant.server_tool_progress",
        "tool.execution_partial_result",
        "tool.execution_progress",
        "tool.user_requested",
        "subagent.configured",
        "subagent.selected",
        "subagent.deselected",
        "hook.start",
        "hook.end",
        "hook.progress",
        "session.info",
        "session.warning",
        "session.idle",
        "session.usage_checkpoint",
        "session.usage_info",
        "session.compaction_start",
        "session.title_changed",
        "session.todos_changed",
        "session.plan_changed",
        "session.workspace_file_changed",
        "session.snapshot_rewind",
        "session.task_complete",
        "session.tools_updated",
        "session.skills_loaded",
        "session.mcp_servers_loaded",
        "session.background_tasks_changed",
        "session.remote_steerable_changed",
        # the model was told of a mode `--mode` or a switch set (`session.mode_changed`
        # says which); 1.0.102 writes it on a resume with `--mode plan` or `autopilot`
        "session.mode_notice_delivered",
        # scheduling, autopilot, canvas and tool-search bookkeeping (copilot-sdk schema)
        "session.schedule_created",
        "session.schedule_cancelled",
        "session.schedule_rearmed",
        "session.autopilot_objective_changed",
        "session.canvas.recorded",
        "session.canvas.removed",
        "tool_search.activated",
        "external_tool.requested",
        "external_tool.completed",  # an SDK client's tool: its result follows as usual
        "session.session_limits_changed",
        "session.binary_asset",
        "skill.invoked",
        "pending_messages.modified",
        "permission.requested",
        "permission.completed",
        "user_input.requested",
        "user_input.completed",
        "elicitation.requested",
        "elicitation.completed",
        "command.queued",
        "command.execute",
        "command.completed",
        "model.call_start",
        "model.call_finished",
        "model.call_final_result",
        # durable in 1.0.102's schemas/session-events.schema.json: a fusion turn's commit
        # steps and handoffs between its models (its answer comes as `assistant.message`),
        # receipts of a turn's end and of skills given again by reference, a user's answer
        # (its tool's result holds it), permission and recovery bookkeeping
        "session.fusion_commit_started",
        "session.fusion_handoff",
        "session.fusion_change_checkpoint",
        "session.completion_receipt",
        "skill.invoked_ref",
        "skill.context_delivered_ref",
        "human_response.recorded",
        "permission.assentDetected",
        "permission.carriedForward",
        "permission.contextualAuthorization",
        "permission.messageAuthorization",
        "permission.messageAuthorizationDegraded",
        "permission.messageAuthorizationRead",
        "session.permission_recovery",
        "session.request_body_compression_disabled",
        "mcp.oauth_recovery_completed",
    }
)


def locate(home: Home) -> Location:
    """`$COPILOT_HOME`, else `~/.copilot`; CLIs up to 0.0.421 kept their state in
    `$XDG_STATE_HOME/.copilot` when that was set (later ones move it on their next start)."""
    override = home.env_dir("COPILOT_HOME")
    if override is not None:
        return Location(override, f"COPILOT_HOME={override}")
    state = home.env_dir("XDG_STATE_HOME")
    return Location(
        home.path / ".copilot", also=(state / ".copilot",) if state is not None else ()
    )


# where `scan` reads a session or its folder (see base.py): a broken link elsewhere (a
# note in a session's folder) hides none
SESSION_NAMES = (
    "session-state",
    "session-state/*",  # a session's folder, or a legacy session's one file
    "session-state/*/events.jsonl",
    "session-state/*/workspace.yaml",
    "history-session-state",
    "history-session-state/*.json",
)


def scan(location: Location) -> Iterator[Path]:
    if not location.exists:
        return
    for root in (location.root, *location.also):
        state = root / "session-state"
        for entry in folders.entries(state, root):
            if entry.name.endswith(".jsonl"):  # a legacy session's one file
                if folders.file_entry(entry):  # a folder so named hides it: said
                    yield Path(entry.path)
            elif entry.is_dir():
                listed = {e.name: e for e in folders.entries(Path(entry.path), root)}
                for name in (_EVENTS, _WORKSPACE):
                    if name in listed and folders.file_entry(listed[name]):
                        yield Path(entry.path) / name
        for entry in folders.entries(root / _copilot_history.FOLDER, root):
            if entry.name.endswith(".json") and folders.file_entry(entry):
                yield Path(entry.path)


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path.name == _WORKSPACE:
        return _parse_workspace(path)
    if path.parent.name == _copilot_history.FOLDER:
        return _copilot_history.parse(path, diagnostics)
    try:
        size, head, tail = files.ends(path, diagnostics=diagnostics)
    except FileNotFoundError:
        return []
    last_head = head[-1].end if head else 0
    lines = [(line, True) for line in head] + [
        (line, False) for line in tail if line.offset >= last_head
    ]
    legacy = path.name != _EVENTS
    fields: dict[str, object] = {}
    # the lines between the head and the tail go unread: a mode change there is missed
    unread_middle = bool(tail) and tail[0].offset > last_head
    mode_at_end = False  # a mode change seen in the tail: the last one, known
    permissions_at_end = False  # so for the permission policy
    first_prompt: str | None = None
    updated: datetime | None = None
    copies = False  # an event dated before the session began: a fork's copied history
    for line, counted in lines:
        # a torn last line is one the app is still writing: noted, not counted as broken
        record = files.parse_json(
            line, diagnostics if counted or not line.complete else None, str(path)
        )
        if record is None:
            continue
        stamp = epoch_or_iso_time(record.get("timestamp"))
        updated = stamp or updated
        kind = type_tag(record.get("type"))
        data = as_dict(record.get("data"))
        main = (
            not isinstance(record.get("agentId"), str)
            and "parentToolCallId" not in data
        )
        created = fields.get("created")
        if stamp and isinstance(created, datetime) and stamp < created:
            copies = True
        if kind == "session.start":
            fields.setdefault("id", as_str(data.get("sessionId")))
            fields.setdefault(
                "created", epoch_or_iso_time(data.get("startTime")) or stamp
            )
            fields.setdefault("cli_version", as_str(data.get("copilotVersion")))
            _context(fields, data)
            fields["model"] = as_str(data.get("selectedModel")) or fields.get("model")
            _effort(fields, data)
        elif kind == "session.resume":
            _context(fields, data)
            fields["model"] = as_str(data.get("selectedModel")) or fields.get("model")
            _effort(fields, data)
        elif kind == "session.context_changed" and main:  # moved folder or branch
            _context(fields, {"context": data})
        elif kind == "session.model_change" and main:
            fields["model"] = as_str(data.get("newModel")) or fields.get("model")
            fields["effort"] = as_str(data.get("reasoningEffort"))
        elif kind == "session.model_deselected" and main:
            # its provider withdrew the model: Copilot asks for another (`/model`)
            fields["model"] = None
        elif kind == "session.permissions_changed" and main:
            # one that names no Allow All value (another setting's) leaves it as it was
            if (permission_mode := _permission_mode(data)) is not None:
                fields["permission_mode"] = permission_mode
                permissions_at_end = permissions_at_end or not counted
        elif kind == "session.mode_changed" and main:  # interactive, plan, autopilot
            fields["agent_mode"] = as_str(data.get("newMode"))
            mode_at_end = mode_at_end or not counted
        elif kind == "session.shutdown":
            fields["model"] = as_str(data.get("currentModel")) or fields.get("model")
        elif (
            kind == "user.message"
            and main
            and first_prompt is None
            and not _injected(data)
        ):
            first_prompt = one_line(as_str(data.get("content")), limit=None)
    unsearched: list[JSONValue] | None = None
    if unread_middle and not permissions_at_end:
        # Copilot restores the policy a `/allow-all` there left: looked for, not guessed
        middle = _middle_permissions(
            path, last_head, tail[0].offset, diagnostics, files.MIDDLE_CAP
        )
        fields["permission_mode"] = middle or fields.get("permission_mode")
        if tail[0].offset - last_head > files.MIDDLE_CAP:
            unsearched = [last_head, tail[0].offset]  # too long for every refresh
    repository = as_str(fields.get("repository"))
    session_id = as_str(fields.get("id")) or (path.stem if legacy else path.parent.name)
    extra: dict[str, JSONValue] = {"repository": repository} if repository else {}
    if mode := as_str(fields.get("agent_mode")):
        extra["mode"] = mode
    if unread_middle and not mode_at_end:
        extra["mode_unsure"] = True  # a later change (to autopilot) may lie unread
    if unsearched:
        extra["permissions_unsearched"] = unsearched  # searched by `resume`
    if copies and (origin := _fork_origin(path, session_id, size, diagnostics)):
        extra["forked_from_id"] = origin
    # The title lives in workspace.yaml (`name`, else an older build's `summary`); only
    # the flat legacy files have none. The first prompt stands in where it names nothing.
    named_elsewhere = not legacy and (path.parent / _WORKSPACE).exists()
    title = None if named_elsewhere else first_prompt
    fallback = (
        [
            Session(
                app=NAME, id=session_id, title=first_prompt, precedence=-1, listed=False
            )
        ]
        if named_elsewhere and first_prompt
        else []
    )
    return [
        *fallback,
        Session(
            app=NAME,
            id=session_id,
            path=str(path),
            cwd=as_str(fields.get("cwd")),
            branch=as_str(fields.get("branch")),
            title=title,
            created=_datetime(fields.get("created")),
            updated=updated,
            model=as_str(fields.get("model")),
            effort=as_str(fields.get("effort")),
            permission_mode=as_str(fields.get("permission_mode")),
            cli_version=as_str(fields.get("cli_version")),
            bytes=size,
            precedence=1,
            extra=extra,
        ),
    ]


def _fork_origin(
    path: Path, session_id: str, size: int, diagnostics: Diagnostics
) -> str | None:
    """The session `/fork` copied this one from. Its notice, after the copied events,
    names both ("Forked from "…" (<origin>) as "…" (<this>)"); the origin's own notice
    names only the fork, and a fork of a fork also holds its origin's copied notice,
    which does not name this session: the oldest notice naming this one and another."""
    origin = None
    for line in files.lines_with(path, _INFO_TYPE, 0, size, diagnostics=diagnostics):
        record = files.parse_json(line) or {}
        data = as_dict(record.get("data"))
        if record.get("type") != "session.info" or data.get("infoType") != "fork":
            continue
        message = as_str(data.get("message")) or ""
        named = _NAMED_ID.findall(message)
        others = [found for found in named if found != session_id]
        if session_id in named and others:
            origin = others[0]  # found newest first: the last one kept is the oldest
    return origin


def _permission_mode(data: Mapping[str, object]) -> str | None:
    """The policy a `session.permissions_changed` left: "allow-all" or "manual" (1.0.102
    writes `allowAllPermissions` and `allowAllPermissionMode`, on or off)."""
    allowed = data.get("allowAllPermissions")
    if not isinstance(allowed, bool):
        allowed = {"on": True, "off": False}.get(
            as_str(data.get("allowAllPermissionMode")) or ""
        )
    return None if allowed is None else "allow-all" if allowed else "manual"


def _effort(fields: dict[str, object], data: dict[str, object]) -> None:
    """The reasoning effort a `session.start` or `session.resume` names (the SDK's event
    schema has one beside `selectedModel`; 1.0.102's CLI writes it in the
    `session.model_change` that follows instead): one that names none keeps the last."""
    if effort := as_str(data.get("reasoningEffort")):
        fields["effort"] = effort


def _middle_permissions(
    path: Path, start: int, end: int, diagnostics: Diagnostics | None, cap: int
) -> str | None:
    """The policy the last main-agent `session.permissions_changed` in [start, end) left,
    searched where the span is at most `cap` bytes."""
    for line in files.lines_with(
        path, _PERMISSIONS_CHANGED, start, end, cap=cap, diagnostics=diagnostics
    ):
        record = files.parse_json(line) or {}
        data = as_dict(record.get("data"))
        if (
            record.get("type") == "session.permissions_changed"
            and not isinstance(record.get("agentId"), str)
            and (mode := _permission_mode(data))
        ):
            return mode
    return None


def _parse_workspace(path: Path) -> list[Session]:
    values = _read_yaml(path)
    if not values:
        return []
    session_id = values.get("id") or path.parent.name
    return [
        Session(
            app=NAME,
            id=session_id,
            cwd=values.get("cwd"),
            branch=values.get("branch"),
            title=one_line(values.get("name") or values.get("summary"), limit=None),
            created=epoch_or_iso_time(values.get("created_at")),
            listed=False,
            extra={"user_named": values.get("user_named") == "true"},
        )
    ]


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if not session.path:
        return
    path = Path(session.path)
    if path.parent.name == _copilot_history.FOLDER:  # one document: offset ignored
        yield from _copilot_history.read(session, diagnostics)
        return
    reader = _Reader(session, offset)
    try:
        start = line_start(path, offset)
        for line, record in files.iter_records(
            path, diagnostics, offset=start, full=full
        ):
            kind = type_tag(record.get("type"))
            if not isinstance(kind, str):
                diagnostics.unknown_type("<no type>", session.cli_version)
                continue
            if kind in _IGNORED:
                continue
            if not reader.handles(kind):
                diagnostics.unknown_type(kind, session.cli_version)
                continue
            yield from reader.translate(kind, record)
            if reader.odd:  # a count it billed is none an app writes
                reader.odd = False
                diagnostics.damage(str(path), line.number, ODD_COUNT)
    except FileNotFoundError:
        diagnostics.problem(f"{path}: vanished while reading")


class _Reader:
    """Translates one session's events in order; keeps the little state the links need."""

    def __init__(self, session: Session, offset: int) -> None:
        self.session = session
        self.emit = Emitter(session.id)
        self.offset = offset
        self.call_owner: dict[
            str, str | None
        ] = {}  # tool call id -> agent that asked for it
        self.child_of_call: dict[str, str] = {}  # spawning tool call id -> sub-agent id
        # calls that send a sub-agent to the background (`task` with mode "background"):
        # they are answered at once, and `subagent.completed` ends the agent later
        self.background: set[str] = set()
        self.final: dict[
            str | None, bool
        ] = {}  # agent -> its last message asked for no tool
        self.last_thinking: dict[str | None, str] = {}
        self.billed: set[str] = set()  # apiCallIds already counted
        self.records_since_shutdown = 0
        self.totals: dict[str, Usage] = {}
        # a fork's events dated before it was made are copies: its origin paid for them
        self.forked_at = (
            session.created.timestamp()
            if session.extra.get("forked_from_id") and session.created
            else None
        )
        self.copy_told = False  # the note opening the copied events was given
        self.odd = False  # the record read billed a count no app writes (`odd_count`)

    def gross_usage(self, data: Mapping[str, object], model: str | None) -> Usage:
        """`_gross_usage`, noting an odd count among those it bills."""
        if any(odd_count(data.get(key)) for key in _COUNTS):
            self.odd = True
        return _gross_usage(data, model)

    def paid_here(self, record: Mapping[str, object]) -> bool:
        """Whether what the event billed counts in this session (not a fork's copy)."""
        if self.forked_at is None:
            return True
        when = epoch_or_iso_time(record.get("timestamp"))
        return when is None or when.timestamp() >= self.forked_at

    _HANDLERS = frozenset(
        {
            "session.start",
            "session.resume",
            "session.context_changed",
            "session.model_change",
            "session.mode_changed",
            "session.permissions_changed",
            "session.auto_mode_resolved",
            "session.model_deselected",
            "session.fusion_resolved",
            "session.fusion_route_failed",
            "session.fusion_completed",
            "assistant.fusion_phase_completed",
            "assistant.fusion_phase_failed",
            "skill.context_delivered",
            "session.handoff",
            "session.context_cleared",
            "session.truncation",
            "session.compaction_complete",
            "session.error",
            "session.shutdown",
            "session.usage_record",
            "assistant.usage",
            "user.message",
            "assistant.message",
            "assistant.reasoning",
            "assistant.turn_end",
            "tool.execution_start",
            "tool.execution_complete",
            "subagent.started",
            "subagent.completed",
            "subagent.failed",
            "abort",
        }
    )

    def handles(self, kind: str) -> bool:
        return kind in self._HANDLERS

    def event(
        self,
        kind: EventKind,
        record: Mapping[str, object],
        **fields: Unpack[EventFields],
    ) -> Event:
        fields.setdefault("agent_id", self.agent(record))
        return self.emit(kind, epoch_or_iso_time(record.get("timestamp")), **fields)

    def agent(self, record: Mapping[str, object]) -> str | None:
        agent = record.get("agentId")
        if isinstance(agent, str) and agent:
            return agent
        parent_call = as_str(as_dict(record.get("data")).get("parentToolCallId"))
        if parent_call:
            return self.child_of_call.get(parent_call, parent_call)
        return None

    def translate(self, kind: str, record: Mapping[str, object]) -> Iterator[Event]:
        data = as_dict(record.get("data"))
        if not self.copy_told and not self.paid_here(record):
            self.copy_told = True
            origin = as_str(self.session.extra.get("forked_from_id")) or "?"
            yield self.event(
                "meta",
                record,
                agent_id=None,
                text=copied_note(origin),
                extra={"forked_from": origin},
            )
        agent = self.agent(record)
        if kind in ("session.start", "session.resume"):
            context = as_dict(data.get("context"))
            meta: dict[str, JSONValue] = {
                key: value
                for key, value in (
                    ("model", as_str(data.get("selectedModel"))),
                    ("cwd", as_str(context.get("cwd"))),
                    ("branch", as_str(context.get("branch"))),
                )
                if value
            }
            text = "session started" if kind == "session.start" else "session resumed"
            yield self.event("meta", record, text=text, extra=meta)
        elif kind == "session.context_changed":
            moved: dict[str, JSONValue] = {
                key: value
                for key in ("cwd", "branch")
                if (value := as_str(data.get(key)))
            }
            if moved:
                said = ", ".join(f"{key}: {value}" for key, value in moved.items())
                yield self.event("meta", record, text=said, extra=moved)
        elif kind == "session.model_change":
            model = as_str(data.get("newModel"))
            change: dict[str, JSONValue] = {"model": model}
            if as_str(data.get("reasoningEffort")):
                change["effort"] = as_str(data.get("reasoningEffort"))
            yield self.event("meta", record, text=f"model: {model}", extra=change)
        elif kind == "session.auto_mode_resolved":
            model = as_str(data.get("chosenModel"))
            yield self.event(
                "meta", record, text=f"auto model: {model}", extra={"model": model}
            )
        elif kind == "session.model_deselected":
            model = as_str(data.get("previousModel"))
            why = as_str(data.get("reason"))
            said = (
                "withdrawn by its provider"
                if why == "provider_withdrawn"
                else _words("deselected", _bracketed(why))
            )
            text = _words(f"model {model}" if model else "the model", said)
            yield self.event("meta", record, text=text, extra={"model": None})
        elif kind.startswith(("session.fusion_", "assistant.fusion_phase_")):
            yield self.fusion(kind, record, data)
        elif kind == "skill.context_delivered":  # a skill's text given mid-turn
            yield self.event(
                "user",
                record,
                text=shown_text(data.get("content")),
                extra={"injected": True, "source": as_str(data.get("source"))},
            )
        elif kind == "session.mode_changed":
            mode = as_str(data.get("newMode"))
            yield self.event("meta", record, text=f"mode: {mode}", extra={"mode": mode})
        elif kind == "session.permissions_changed":
            mode = _permission_mode(data)
            yield self.event(
                "meta",
                record,
                text=f"permissions: {mode}" if mode else "permissions changed",
                extra={"permission_mode": mode},
            )
        elif kind == "session.handoff":
            yield self.event(
                "meta", record, text="handed off", extra={"handoff": shown_json(data)}
            )
        elif kind == "session.context_cleared":
            yield self.event("compaction", record, extra={"reason": "cleared"})
        elif kind == "session.truncation":
            removed = data.get("messagesRemovedDuringTruncation")
            yield self.event(
                "compaction",
                record,
                extra={"reason": "truncation", "messages_removed": shown_json(removed)},
            )
        elif kind == "session.compaction_complete":
            if data.get("success") is False:
                yield self.event(
                    "error",
                    record,
                    text=f"compaction failed: {shown_text(data.get('error'))}",
                )
                return
            summary = shown_text(data.get("summaryContent"))
            yield self.event(
                "compaction", record, text=summary, extra={"reason": "compaction"}
            )
            # the compaction's own model call, unless a usage record billed it already;
            # a build that writes no per-call records bills it in its shutdown totals
            spent = as_dict(data.get("compactionTokensUsed"))
            compaction_call = as_str(data.get("requestId"))
            billed = compaction_call is not None and compaction_call in self.billed
            if spent and self.billed and not billed and self.paid_here(record):
                if compaction_call:
                    self.billed.add(compaction_call)
                self.records_since_shutdown += 1
                yield self.event(
                    "usage",
                    record,
                    usage=self.gross_usage(spent, as_str(spent.get("model"))),
                    extra={"reason": "compaction"},
                )
        elif kind == "abort" and not shown_text(data.get("error")):
            # the user stopped the turn ("user initiated"): an interruption, not a failure
            why = shown_text(data.get("reason"))
            yield self.event(
                "meta", record, text=f"aborted: {why}" if why else "aborted"
            )
            yield self.event(
                "turn_end",
                record,
                extra={"reason": why or "aborted", "interrupted": True},
            )
        elif kind in ("session.error", "abort", "subagent.failed"):
            why = (
                shown_text(data.get("message"))
                or shown_text(data.get("error"))
                or shown_text(data.get("reason"))
            )
            prefix = {"abort": "aborted", "subagent.failed": "sub-agent failed"}.get(
                kind, "error"
            )
            yield self.event(
                "error", record, text=f"{prefix}: {why}" if why else prefix
            )
        elif kind in ("session.usage_record", "assistant.usage"):
            usage_data = (
                as_dict(data.get("usage")) if kind == "session.usage_record" else data
            )
            call = as_str(usage_data.get("apiCallId"))
            if call and call in self.billed:
                return
            if call:
                self.billed.add(call)
            if provider_call := as_str(usage_data.get("providerCallId")):
                self.billed.add(provider_call)  # what a compaction names as requestId
            if not self.paid_here(record):
                return
            self.records_since_shutdown += 1
            yield self.event(
                "usage",
                record,
                usage=self.gross_usage(usage_data, as_str(usage_data.get("model"))),
            )
        elif kind == "session.shutdown":
            yield from self.shutdown(record, data)
        elif kind == "user.message":
            self.final[agent] = False
            if _injected(data):  # a skill, the system or autopilot spoke, not the user
                yield self.event(
                    "user",
                    record,
                    text=shown_text(data.get("content")),
                    extra={"injected": True, "source": as_str(data.get("source"))},
                )
            else:
                pieces = [shown_text(data.get("content")) or "", *_attached(data)]
                typed = "\n".join(piece for piece in pieces if piece)
                yield self.event("user", record, text=typed or None)
        elif kind == "assistant.reasoning":
            yield from self.thinking(record, agent, data.get("content"))
        elif kind == "assistant.message":
            yield from self.thinking(record, agent, data.get("reasoningText"))
            content = shown_text(data.get("content"))
            if content and content.strip():
                yield self.event("assistant", record, text=content)
            requests = data.get("toolRequests")
            calls = (
                [r for r in requests if isinstance(r, dict)]
                if isinstance(requests, list)
                else []
            )
            for request in calls:
                call_id = as_str(request.get("toolCallId"))
                if call_id:
                    self.call_owner[call_id] = agent
                yield self.tool_call(
                    record,
                    call_id,
                    as_str(request.get("name")),
                    request.get("arguments"),
                )
            self.final[agent] = not calls
        elif kind == "assistant.turn_end":
            if self.final.pop(agent, False):
                yield self.event("turn_end", record)
        elif kind == "tool.execution_start":
            call_id = as_str(data.get("toolCallId"))
            if call_id and call_id not in self.call_owner:
                self.call_owner[call_id] = agent
                yield self.tool_call(
                    record, call_id, as_str(data.get("toolName")), data.get("arguments")
                )
        elif kind == "tool.execution_complete":
            yield self.tool_result(record, data)
        elif kind == "subagent.completed":
            # a sub-agent's end (one stopped is "cancelled", not failed): what closes one
            # sent to the background, whose call was answered at start
            stopped = data.get("cancelled") is True
            yield self.event(
                "meta",
                record,
                call_id=as_str(data.get("toolCallId")),
                text="sub-agent cancelled" if stopped else "sub-agent done",
                extra={"subagent_status": "done", "cancelled": stopped},
            )
        elif kind == "subagent.started":
            call_id = as_str(data.get("toolCallId"))
            child = as_str(record.get("agentId")) or call_id
            if call_id and child:
                self.child_of_call[call_id] = child
            agent_type = as_str(data.get("agentType")) or as_str(data.get("agentName"))
            description = shown_text(data.get("agentDescription")) or shown_text(
                data.get("agentDisplayName")
            )
            yield self.event(
                "subagent",
                record,
                agent_id=self.call_owner.get(call_id) if call_id else None,
                call_id=call_id,
                text=description,
                extra={"child_id": child, "agent_type": agent_type},
            )

    def fusion(
        self, kind: str, record: Mapping[str, object], data: Mapping[str, object]
    ) -> Event:
        """A HydraFusion turn (1.0.102: several models answer one prompt) as notes: its
        route, each phase's end, its outcome. The answer it commits comes as an
        `assistant.message`; the tokens its outcome sums are not billed again."""
        fusion_id = as_str(data.get("fusionId"))
        model = _bracketed(as_str(data.get("model")))
        phase = _words("fusion phase", as_str(data.get("phaseKind")), model)
        extra: dict[str, JSONValue] = {"fusion_id": fusion_id}
        # a field left out is left out of the note: none says "None"
        if kind == "session.fusion_resolved":
            primary = as_str(data.get("primaryModel"))
            second = as_str(data.get("secondaryModel"))
            text = _words("fusion", as_str(data.get("pattern")))
            text += f": {primary}" if primary else ""
            text += f", review by {second}" if second else ""
            extra["hint"] = shown_text(data.get("hint"))
        elif kind == "session.fusion_route_failed":
            fallback = as_str(data.get("fallbackModel"))
            text = _words(
                "fusion routing failed", _bracketed(as_str(data.get("reason")))
            )
            text += f": {fallback} instead" if fallback else ""
            extra["error"] = shown_text(data.get("errorMessage"))
        elif kind == "session.fusion_completed":
            outcome = as_str(data.get("outcome"))
            source = as_str(data.get("finalSourceModel"))
            phases = as_int(data.get("phaseCount"))
            said = [f"{phases} phases"] if phases else []
            said += [f"answer from {source}"] if source else []
            text = _words("fusion", outcome or "ended")
            text += f": {', '.join(said)}" if said else ""
            extra["fusion_outcome"] = outcome
        elif kind == "assistant.fusion_phase_failed":
            reason = as_str(data.get("reason"))
            text = f"{phase} failed" + (f": {reason}" if reason else "")
            extra["error"] = shown_text(data.get("errorMessage"))
        else:  # a phase's words reach the conversation only if the turn commits them
            text = _words(phase, as_str(data.get("status")) or "ended")
            verdict = shown_text(data.get("verdict"))
            text += f", verdict {verdict}" if verdict else ""
            # what its model wrote: a draft the turn did not commit, a review, is seen
            # only here
            content = shown_text(data.get("content"))
            text += f": {content}" if content and content.strip() else ""
            extra["verdict"] = verdict
        return self.event("meta", record, text=text, extra=extra)

    def thinking(
        self, record: Mapping[str, object], agent: str | None, value: object
    ) -> Iterator[Event]:
        text = shown_text(value)
        if not text or not text.strip() or self.last_thinking.get(agent) == text:
            return
        self.last_thinking[agent] = text
        yield self.event("thinking", record, text=text)

    def tool_call(
        self,
        record: Mapping[str, object],
        call_id: str | None,
        tool: str | None,
        arguments: object,
    ) -> Event:
        value = shown_arguments(arguments)
        text = value if isinstance(value, str) else None  # not JSON: a raw patch, say
        if call_id and isinstance(value, dict) and value.get("mode") == "background":
            self.background.add(call_id)
        return self.event(
            "tool_call",
            record,
            tool=tool,
            call_id=call_id,
            text=text,
            extra={"input": value},
        )

    def tool_result(
        self, record: Mapping[str, object], data: Mapping[str, object]
    ) -> Event:
        result = as_dict(data.get("result"))
        # `detailedContent` is what Copilot's timeline shows (an edit's diff, an output
        # whole); `content` what the model was given, maybe cut short for tokens: the
        # schema says the UI falls back to it (copilot-sdk session-events.ts)
        shown = shown_text(result.get("detailedContent"))
        given = shown_text(result.get("content"))
        text = shown or given
        extra: dict[str, JSONValue] = {}
        if shown and given and given != shown:  # the JSON keeps the model's too, once
            extra["model_text"] = given
        error = data.get("error")
        if not text and error is not None:
            text = (
                shown_text(as_dict(error).get("message"))
                if isinstance(error, dict)
                else shown_text(error)
            )
        call_id = as_str(data.get("toolCallId"))
        failed = data.get("success") is False
        return self.event(
            "tool_result",
            record,
            call_id=call_id,
            text=text,
            is_error=failed,
            extra=extra | {"launched": True}
            if call_id in self.background and not failed
            else extra,
        )

    def shutdown(
        self, record: Mapping[str, object], data: Mapping[str, object]
    ) -> Iterator[Event]:
        totals = _shutdown_totals(data)
        if (
            self.records_since_shutdown == 0
            and self.offset == 0
            and self.paid_here(record)
        ):
            self.odd = self.odd or _odd_totals(data)
            for model, total in totals.items():
                before = self.totals.get(model, Usage())
                delta = _minus(total, before)
                if (
                    delta is None
                ):  # the counters went down: a fresh count, not a running one
                    delta = total
                if delta.total or delta.reasoning_tokens:
                    yield self.event(
                        "usage",
                        record,
                        agent_id=None,
                        usage=delta,
                        extra={"from": "shutdown totals", "summed": True},
                    )
        self.totals = totals or self.totals
        self.records_since_shutdown = 0
        # Copilot writes this as it exits (`shutdownType` "routine"); a resume goes on after it
        how = as_str(data.get("shutdownType"))
        yield self.event(
            "meta",
            record,
            agent_id=None,
            text="exited" if how in (None, "routine") else f"exited ({how})",
            extra={"exited": True},
        )


def _words(*words: str | None) -> str:
    """The words given, those a record left out (None, empty) left out."""
    return " ".join(word for word in words if word)


def _bracketed(word: str | None) -> str | None:
    return f"({word})" if word else None


# a usage record's counts, in `_gross_usage`'s order
_COUNTS = (
    "inputTokens",
    "outputTokens",
    "cacheReadTokens",
    "cacheWriteTokens",
    "reasoningTokens",
)


def _gross_usage(data: Mapping[str, object], model: str | None) -> Usage:
    """Copilot's inputTokens include cache reads and writes: keep only the rest."""
    # each 0 below 0 (broken): less a negative cached count, the input grew by it
    given, output, cache_read, cache_write, reasoning = (
        max(0, as_int(data.get(key))) for key in _COUNTS
    )
    return Usage(
        input_tokens=max(0, given - cache_read - cache_write),
        output_tokens=output,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        reasoning_tokens=reasoning,
        model=model,
    )


# a shutdown's `tokenDetails` kinds, billed where it has no per-model metrics
_DETAILS = ("input", "output", "cache_read", "cache_write")


def _shutdown_totals(data: Mapping[str, object]) -> dict[str, Usage]:
    totals: dict[str, Usage] = {}
    for model, metric in as_dict(data.get("modelMetrics")).items():
        usage = as_dict(as_dict(metric).get("usage"))
        if usage:
            totals[model] = _gross_usage(usage, model)
    if totals:
        return totals
    details = as_dict(data.get("tokenDetails"))
    current = as_str(data.get("currentModel"))
    if details and current:
        given, output, cache_read, cache_write = (
            max(0, as_int(value)) for value in _detail_counts(details)
        )
        totals[current] = Usage(given, output, cache_read, cache_write, 0, current)
    return totals


def _detail_counts(details: Mapping[str, object]) -> list[object]:
    """A shutdown's `tokenDetails` counts as written, in `_DETAILS`' order."""
    return [as_dict(details.get(key)).get("tokenCount") for key in _DETAILS]


def _odd_totals(data: Mapping[str, object]) -> bool:
    """Whether the totals `_shutdown_totals` bills hold a count no app writes: the
    per-model metrics', else (none there) the `tokenDetails` it bills instead."""
    metrics = [
        as_dict(as_dict(metric).get("usage"))
        for metric in as_dict(data.get("modelMetrics")).values()
    ]
    if any(metrics):
        return any(odd_count(usage.get(key)) for usage in metrics for key in _COUNTS)
    details = as_dict(data.get("tokenDetails"))
    return bool(details and as_str(data.get("currentModel"))) and any(
        odd_count(value) for value in _detail_counts(details)
    )


def _minus(after: Usage, before: Usage) -> Usage | None:
    parts = (
        after.input_tokens - before.input_tokens,
        after.output_tokens - before.output_tokens,
        after.cache_read_tokens - before.cache_read_tokens,
        after.cache_write_tokens - before.cache_write_tokens,
        after.reasoning_tokens - before.reasoning_tokens,
    )
    if any(part < 0 for part in parts):
        return None
    return Usage(*parts, model=after.model)


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`copilot --resume <id>` in the session's folder (Copilot keeps every session in
    one folder, `session-state/`: one that names no folder is resumed from any), in plan
    mode where it was left in it, and in the interactive one where it was left in
    autopilot, which Copilot would restore (unless `keep_permissions`), or may have been:
    a long session's middle is not read. One left at Allow All, which Copilot restores
    and no flag lowers, is marked `restores_looser` (refused) unless `keep_permissions`."""
    argv = ["copilot", "--resume", session.id]
    notes: list[str] = []
    if session.model:
        argv += ["--model", session.model]
    if session.effort and (session.model or "").lower() == "auto":
        # GitHub's Auto answers an effort with an error (400; third-party runs of 1.0.88).
        # Not seen offline: 1.0.102 with a BYOK provider resolves Auto to that provider's
        # model and sends the effort (rc 0), so the 400 is the service's, kept out here
        notes.append(
            f"reasoning effort {session.effort!r} not passed: Copilot's Auto model "
            "takes none"
        )
    elif session.effort:
        argv += ["--reasoning-effort", session.effort]
    withheld: list[str] = []
    permission_mode = _permissions_on_resume(session)
    # 1.0.102 reopens a session at the Allow All it was left at, whatever the flags
    looser = permission_mode == "allow-all" and not keep_permissions
    if permission_mode == "allow-all" and keep_permissions:
        argv.append("--allow-all")
    # Copilot reopens a session in the agent mode it was left in, where `--mode` says
    # none: autopilot (going on without waiting for the user) loosens the default
    mode = session.extra.get("mode")
    if mode == "plan" or (mode == "autopilot" and keep_permissions):
        argv += ["--mode", mode]
    elif mode == "autopilot":
        argv += ["--mode", "interactive"]
        withheld.append("--mode autopilot")
    elif session.extra.get("mode_unsure") and not keep_permissions:
        # the mode it was left in may be one its unread middle changed to: named, so
        # that an autopilot there is not restored unasked
        argv += ["--mode", "interactive"]
        notes.append(
            "--mode interactive passed: a mode change in the middle of this long "
            "session, which is not read, may have left it in autopilot"
        )
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd or "",
        program="copilot",
        install_hint="npm install -g @github/copilot",
        notes=tuple(notes),
        withheld=tuple(withheld),
        restores_looser="Allow All permission policy" if looser else "",
    )


def _permissions_on_resume(session: Session) -> str | None:
    """The policy the session was left at, its middle searched whole where listing left it
    unsearched (over `files.MIDDLE_CAP`, too long to search on every refresh; one session
    about to be resumed is worth the read)."""
    span = session.extra.get("permissions_unsearched")
    if session.permission_mode == "allow-all" or not session.path:
        return session.permission_mode
    ends = [n for n in span if isinstance(n, int)] if isinstance(span, list) else []
    if len(ends) != 2 or not 0 <= ends[0] < ends[1]:
        return session.permission_mode
    start, end = ends
    try:
        found = _middle_permissions(Path(session.path), start, end, None, end - start)
    except OSError:  # gone or unreadable since: the resume says so when it runs
        found = None
    return found or session.permission_mode


def resume_program(plan: ResumePlan) -> tuple[ResumePlan, str | None]:
    """The `copilot` on PATH unless it is AWS Copilot CLI's (aws/copilot-cli, the ECS
    deployment tool, a Go program), which also installs `copilot` and is never given the
    session's words. GitHub's is its npm loader (a Node script) or a native build, never
    Go. A wrapper (Nix's, a Homebrew exec script) is judged by what it starts."""
    found = shutil.which(plan.program)
    if found is None:
        return plan, None
    if programs.is_go(programs.wrapped(found) or found):
        note = f"the 'copilot' on PATH ({found}) is AWS Copilot CLI, a Go program"
        return replace(plan, notes=(*plan.notes, note)), None
    return plan, found


def process_session(args: Sequence[str]) -> Opened | None:
    """What a running `copilot` has open, read back from the words `resume` writes:
    `--resume <id>` (`-r`, `--resume=<id>`) or `--session-id <id>` that session; a start
    of an id, 7 characters or more (1.0.42+), the one session whose id starts so. A name
    or a picker: one not known yet; `--continue` (whose scope its --help does not say)
    says nothing sure: None."""
    return opened_by_flags(args, RESUME_FLAGS, is_prefix=_is_id_start)


# --- small helpers ----------------------------------------------------------------------


def _is_id_start(word: str) -> bool:
    return _ID_START.fullmatch(word) is not None


def _read_yaml(path: Path) -> dict[str, str]:
    """The top-level scalars of a small YAML mapping, read line-wise (all Copilot writes)."""
    try:
        with files.open_regular(path) as stream:
            raw = stream.read(_WORKSPACE_CAP)
    except OSError:
        return {}
    lines = raw.decode("utf-8", errors="replace").splitlines()
    values: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line or line[0] in " \t#-" or ":" not in line:
            continue
        key, _, value = line.partition(":")
        value = value.strip()
        continuation: list[str] = []
        while i < len(lines) and (not lines[i].strip() or lines[i][0] in " \t"):
            continuation.append(lines[i].strip())
            i += 1
        while continuation and not continuation[-1]:
            continuation.pop()
        if value[:1] in ("|", ">") and value.strip("|>+-0123456789") == "":
            joiner = "\n" if value[0] == "|" else " "
            values[key.strip()] = joiner.join(continuation).strip()
            continue
        value = " ".join([value, *continuation]).strip() if continuation else value
        if value.startswith('"') and value.endswith('"') and len(value) >= 2:
            try:
                decoded = orjson.loads(value)
            except orjson.JSONDecodeError:
                decoded = value[1:-1]
            value = decoded if isinstance(decoded, str) else value[1:-1]
        elif value.startswith("'") and value.endswith("'") and len(value) >= 2:
            value = value[1:-1].replace("''", "'")
        elif value in ("~", "null"):
            continue
        values[key.strip()] = value
    return values


def _context(fields: dict[str, object], data: Mapping[str, object]) -> None:
    context = as_dict(data.get("context"))
    for key, name in (
        ("cwd", "cwd"),
        ("branch", "branch"),
        ("repository", "repository"),
    ):
        value = as_str(context.get(key))
        if value:
            fields[name] = value


def _datetime(value: object) -> datetime | None:
    return value if isinstance(value, datetime) else None


def _injected(data: dict[str, object]) -> bool:
    """A `user.message` the CLI wrote: a skill's hidden prompt (`source: skill-<name>`), a
    system notice, autopilot carrying on, discovered instructions."""
    source = as_str(data.get("source")) or ""
    if data.get("isAutopilotContinuation") is True:
        return True
    content = data.get("content")
    if isinstance(content, str) and content.lstrip().startswith(
        "<system_notification>"
    ):
        return True
    return source not in _TYPED_SOURCES and not source.startswith("agent-")


def _attached(data: Mapping[str, object]) -> list[str]:
    """A note for each thing a prompt attached (copilot-sdk's `Attachment` union): named
    by its path, place or title, an image by its type and size, never its bytes."""
    notes: list[str] = []
    attachments = data.get("attachments")
    for item in attachments if isinstance(attachments, list) else []:
        if not isinstance(item, dict):
            continue
        kind = as_str(item.get("type")) or "attachment"
        name = as_str(item.get("displayName"))
        if kind == "file":
            notes.append(f"[file {as_str(item.get('path')) or name}]")
        elif kind == "directory":
            notes.append(f"[folder {as_str(item.get('path')) or name}]")
        elif kind == "selection":
            place = as_dict(item.get("selection"))
            start = as_int(as_dict(place.get("start")).get("line"))
            end = as_int(as_dict(place.get("end")).get("line"))
            lines = (
                f":{start + 1}-{end + 1}"
                if start is not None and end is not None
                else ""
            )
            notes.append(f"[selection {as_str(item.get('filePath')) or name}{lines}]")
        elif kind == "blob":  # pasted bytes: a size, from the data or the asset's count
            size = as_int(item.get("byteLength")) or decoded_size(item.get("data"))
            label = " ".join(
                part for part in (as_str(item.get("mimeType")) or "data", name) if part
            )
            notes.append(
                f"[{label}, {files.human_bytes(size)}]" if size else f"[{label}]"
            )
        elif kind == "github_reference":
            number = as_int(item.get("number"))
            title = as_str(item.get("title"))
            noun = as_str(item.get("referenceType")) or "reference"
            notes.append(
                f"[{noun} #{number} {title}]" if number else f"[{noun} {title}]"
            )
        else:  # a commit, release, job, repository, diff, URL, an extension's context
            where = as_str(item.get("url")) or name or as_str(item.get("name"))
            notes.append(
                f"[{kind.removeprefix('github_')}{' ' + where if where else ''}]"
            )
    return [shown_text(note) or "" for note in notes]
