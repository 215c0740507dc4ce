"""Kimi Code (MoonshotAI/kimi-code, the `kimi` that Kimi CLI 1.52 installs): `~/.kimi-code`.

What it writes: `$KIMI_CODE_HOME` (default `~/.kimi-code`) holds `sessions/wd_<slug of the
work dir's name>_<sha256(work dir)[:12]>/session_<uuid>/` (sessions imported from Kimi CLI
are `ses_<old uuid>/`). Each has `state.json` (`title`, `isCustomTitle`/`titleKind`,
`createdAt`/`updatedAt` as ISO text (0.3x) or epoch ms (v2), `workDir` (0.3x) or `cwd` (v2),
`lastPrompt`, `archived`, `forkedFrom` (a fork's source session), `agents{<id>{homedir, type main|sub|independent, parentAgentId}}`,
`custom`) and one append-only `agents/<agent id>/wire.jsonl` per agent: a metadata line
(`protocol_version`, `created_at` ms), then flat `{type, …, time: <epoch ms>}` records.

What we read: the main agent's wire for listing (first user prompt, last model alias and
thinking effort, last permission mode, first and last times) and `state.json` (title, cwd,
times, archived) as a fragment of higher precedence. Its `updatedAt` is written as a prompt
is sent (and by a rename), while the answer goes on in the wire: a session was last active
at the later of it and the main wire's last record, which the state's listing reads (the
wire is its `companion_of`: the index reads the state again when the wire changes). `read` translates the main wire:
`turn.prompt`/`turn.steer` of origin user (other origins are meta, a sub-agent's brief is
its user input), `context.append_loop_event` (`content.part` text and think, `tool.call`
and `tool.result` by `toolCallId`, `step.end` for turn ends and failed steps),
`context.append_message` only where no prompt record mirrors it (imported sessions hold
their whole history so), compaction, model, effort, permission and plan-mode changes,
cancelled or failed turns and retried model requests. A sub-agent is another agent of
`state.json`; the `Agent` tool's result names it (`agent_id: agent-0`), so its `subagent`
event and its own wire follow that call; agents nobody named come after the main wire.
Since 2.x the parent's wire says so itself: `subagent.spawned` (`subagentId`,
`parentToolCallId`, `subagentName`, `description`) links the child to its call as soon as
it starts, and `subagent.failed` / `.cancelled` are `meta` notes. A forked agent (a `/btw`
side question, the `Agent` tool's `fork: true`; `forkedFrom` in `state.json`) starts from a
copy of its source's conversation, `context.append_message` records before its own first
prompt: one `meta` note stands for them, since the source's own events show them.

Usage, each model response once: kimi-code writes one `usage.record` per model response
(`usageScope: "turn"` for the agent loop's steps, `"session"` for the rest, such as a
compaction), and its own usage totals are the sum of those records. A loop step's
`step.end.usage` repeats the turn-scoped record of the same response (in the public samples
all 25 step ends equal their records), so `step.end` usage is never counted and every
`usage.record` is. `inputOther` already excludes cache reads and writes. Each agent's
records are in its own wire only, so sub-agents add without overlap. A forked session
(`forkedFrom` in `state.json`) holds verbatim copies of its source's wires, each closed by
a `forked` record: they are shown, but the records dated before the fork's `createdAt`
were billed in the source, not again here. `kimi fork` (2.1.0) also copies its source's
`updatedAt`, older than the fork's own `createdAt`: a fork is last active no earlier than
it was made.

Ignored on purpose (`_IGNORED`): tool lists, request traces, approvals, token counting of
the context window, task, cron, goal and plugin bookkeeping, and 2.x's second copy of each
agent's messages and turns (`agent.message.appended`, `agent.turn.started`, `.ended`: what
`turn.prompt`, the `context.*` records and `turn.ended` already hold, usage included).
`session_index.jsonl` at the root (an index of the session folders) is not needed: the
folders are listed.

Checked against kimi-code 0.3x captures (jazzyalex/agent-sessions fixtures, wire 1.4), the
durable records of @moonshot-ai/kimi-code 2.1.0's bundle (wire 1.5) and a real 2.1.0 run
(prompt mode against the conformance suite's mock model: a turn, `--session` resume, an
`Agent` sub-agent; tests/data/kimi/real-code) and
MoonshotAI/kimi-code @d723cc47 (0.38, MIT): `apps/kimi-code/src/utils/paths.ts`,
`cli/commands.ts`, `packages/agent-core-v2/docs/wire-manifest.d.ts` (wire 1.5),
`session/sessionMetadata/`, `session/usage/usageAgentModel.ts`, `agent/usage/usageOps.ts`,
`agent/tools/agent/agentTool.ts`, `session/agentLifecycle/agentLifecycleService.ts` (forks),
`_base/utils/workdir-slug.ts`, and
`packages/migration-legacy/` (imported sessions).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Unpack

from .. import files, folders
from ..diagnostics import ODD_COUNT, Diagnostics
from ..model import Event, EventKind, JSONValue, ResumePlan, Session, Usage, superseded
from ..wording import count_of
from ._values import (
    Emitter,
    EventFields,
    as_dict,
    as_int,
    as_str,
    copied_note,
    decoded_size,
    dicts,
    epoch_or_iso_time,
    line_start,
    ms_time,
    obj,
    odd_count,
    one_line,
    shown_arguments,
    shown_json,
    shown_text,
    text_of,
    type_tag,
)

WIRE = "wire.jsonl"
STATE = "state.json"
MAIN = "main"  # the lead agent's id, in every version
_SESSION_PREFIX = "session_"  # imported Kimi CLI sessions are `ses_<uuid>` and keep it

# Known records that say nothing about the conversation itself.
_IGNORED = frozenset(
    {
        # the tool list, MCP discovery and the request trace's tool snapshot
        "tools.set_active_tools",
        "tools.reset_active_tools",
        "tools.register_user_tool",
        "tools.unregister_user_tool",
        "tools.update_store",  # the todo list's store
        "llm.tools_snapshot",
        "mcp.tools_discovered",
        # an approval decision: the call and its result are recorded on their own
        "permission.record_approval_result",
        "interaction.request",
        "interaction.resolved",
        # compaction brackets: `context.apply_compaction` carries the summary
        "full_compaction.begin",
        "full_compaction.complete",
        "full_compaction.cancel",
        "micro_compaction.apply",
        # how full the context window is, not what was billed
        "context.update_token_count",
        "token_counting.measured",
        "token_counting.rebased",
        "token_counting.truncated",
        "token_counting.turn_recorded",
        # runtime, plugin, task, cron, goal, swarm and file-history bookkeeping
        "runtime.set_binding",
        "plugin.session_start",
        "prompt.accepted",
        "prompt.aborted",
        "prompt.completed",
        "prompt.steered",
        "interruptionReminder.recorded",
        "task.started",
        "task.terminated",
        "task.waitDelivered",
        "cron.add",
        "cron.cursor",
        "cron.delete",
        "goal.create",
        "goal.update",
        "goal.clear",
        "forked",
        "plan.revision",
        "swarm_mode.enter",
        "swarm_mode.exit",
        "tower_mode.enter",
        "tower_mode.exit",
        "staleGuard.recorded",
        "staleGuard.cleared",
        "file_history.checkpoint",
        "file_history.tracked",
        # 2.x's second copy of each agent's messages and turns (`turn.prompt`, the
        # `context.*` records and `turn.ended` hold them; its `meta.usage` repeats the
        # `usage.record` of the same response)
        "agent.message.appended",
        "agent.turn.started",
        "agent.turn.ended",
        # a sub-agent's run as its parent saw it (2.x); `subagent.spawned`, `.failed` and
        # `.cancelled` are read. The `usage` of `.completed` repeats the child's own
        # `usage.record`s, which are billed from its wire.
        "subagent.started",
        "subagent.completed",
    }
)
# Origins of a prompt a person typed (the others are the app's own: reminders, tasks, cron).
_TYPED = frozenset({"user", "skill_activation", "plugin_command", "shell_command"})
_SPAWNED = re.compile(r"^agent_id: (\S+)", re.MULTILINE)
_TIME = re.compile(rb'"time":\s*(\d+)')
_LAST_BYTES = 16 * 1024  # what `state.json`'s listing reads of the wire: its last lines
_TAIL_KEYS = (
    b'"config.update"',
    b'"profile.bind"',
    b'"llm.request"',
    b'"permission.set_mode"',
)
_TALK = frozenset(
    {"turn.prompt", "context.append_message", "context.append_loop_event"}
)
# What an agent does itself: a fork's seeded copy of its source's conversation ends here.
_OWN_START = frozenset({"turn.prompt", "turn.steer", "context.append_loop_event"})


def owns(path: Path) -> bool:
    """Whether `path` is a Kimi Code file (a session's state or an agent's wire)."""
    if path.name == WIRE:
        return path.parent.parent.name == "agents"
    return path.name == STATE and path.parent.name.startswith((_SESSION_PREFIX, "ses_"))


def companion_of(path: str) -> str | None:
    """The `state.json` whose listing a session's main wire changes: its parse reads the
    wire's last time, so the index reads it again when the wire grows, appears or goes.
    (The wire is listed on its own too.)"""
    agent, base = os.path.split(path)
    agents, name = os.path.split(agent)
    folder, parent = os.path.split(agents)
    if base != WIRE or name != MAIN or parent != "agents":
        return None
    return os.path.join(folder, STATE)


def session_id(folder: str) -> str:
    """The session's id: the uuid of `session_<uuid>`; an imported `ses_<uuid>` keeps its
    prefix, so that it stays apart from the Kimi CLI session it was copied from."""
    return folder.removeprefix(_SESSION_PREFIX) or folder


def scan(root: Path) -> Iterator[Path]:
    """The main agent's wire and the state of every session folder (two probes each)."""
    for workspace in folders.entries(root / "sessions", root):
        if not workspace.is_dir():
            continue
        for entry in folders.entries(Path(workspace.path), root):
            if not entry.is_dir():
                continue
            folder = Path(entry.path)
            wire = folder / "agents" / MAIN / WIRE
            if folders.is_file(wire):
                yield wire
            elif folders.dir_at(wire.parent.parent):  # `agents -> gone` is named
                folders.dir_at(wire.parent)
            if folders.is_file(folder / STATE):
                yield folder / STATE


# --- listing ------------------------------------------------------------------------------


def parse(path: Path, diagnostics: Diagnostics) -> list[Session]:
    if path.name == STATE:
        return _parse_state(path, diagnostics)
    try:
        size, head, tail = files.ends(path, diagnostics=diagnostics)
    except FileNotFoundError:
        return []
    files.note_unfinished_last(tail, diagnostics, str(path))
    summary = _Summary()
    for line in head:
        record = files.parse_json(line, diagnostics, str(path))
        if record is not None:
            summary.take(record)
    last_head = head[-1].end if head else 0
    files.take_tail(tail, last_head, _TAIL_KEYS, summary.take, summary.stamp)
    if not summary.talked:
        return []  # a session kimi opened but nobody spoke in yet
    extra: dict[str, JSONValue] = {}
    if summary.protocol:
        extra["protocol_version"] = summary.protocol
    folder = path.parent.parent.parent
    return [
        Session(
            app="kimi",
            id=session_id(folder.name),
            path=str(path),
            cwd=summary.cwd,
            title=summary.prompt,
            created=summary.created,
            updated=summary.updated or summary.created,
            model=summary.model,
            effort=summary.effort,
            permission_mode=summary.mode,
            bytes=size,
            precedence=1,
            extra=extra,
        )
    ]


def _parse_state(path: Path, diagnostics: Diagnostics) -> list[Session]:
    state = files.read_json_file(path, limit=4 * 1024 * 1024, diagnostics=diagnostics)
    if not isinstance(state, dict):
        return []
    extra: dict[str, JSONValue] = {"archived": state.get("archived") is True}
    forked = text_of(state, "forkedFrom")  # a fork names the session it was copied from
    imported = obj(state, "custom").get("kimi_cli_session_id")
    if forked:
        # (its `custom` is its source's copy: the Kimi CLI import, if any, was the source's)
        extra["forked_from_id"] = session_id(forked)
    elif isinstance(imported, str) and imported:
        extra["imported_from"] = imported  # the Kimi CLI session it was migrated from
    own = session_id(path.parent.name)
    created = epoch_or_iso_time(state.get("createdAt"))
    updated = epoch_or_iso_time(state.get("updatedAt"))
    if created is not None and updated is not None and updated < created:
        updated = created  # `kimi fork` (2.1.0) keeps its source's `updatedAt`
    # `updatedAt` is written as a prompt is sent, the answer goes on in the wire: the
    # later of the two (a rename writes only this file). The index reads this file again
    # when the wire changes (`companion_of`).
    ended = _last_time(path.parent / "agents" / MAIN / WIRE)
    if ended is not None and (updated is None or ended > updated):
        updated = ended
    found = [
        Session(
            app="kimi",
            id=own,
            cwd=text_of(state, "cwd") or text_of(state, "workDir"),
            title=one_line(state.get("title"), limit=None),
            created=created,
            updated=updated,
            precedence=2,
            listed=False,  # listed through its wire: a state without one was never used
            extra=extra,
        )
    ]
    if "imported_from" in extra and extra["imported_from"] != own:
        # the Kimi CLI session this copies is this one now: after the upgrade `kimi` is
        # Kimi Code, which knows it only by the copy's id (`kimi --session <old id>` fails)
        found.append(superseded("kimi", str(extra["imported_from"]), own))
    return found


class _Summary:
    """What listing needs from the records it sees; the last word wins."""

    def __init__(self) -> None:
        self.created: datetime | None = None
        self.updated: datetime | None = None
        self.prompt: str | None = None
        self.model: str | None = None
        self.effort: str | None = None
        self.mode: str | None = None
        self.cwd: str | None = None
        self.protocol: str | None = None
        self.talked = False

    def take(self, record: Mapping[str, object]) -> None:
        kind = record.get("type")
        self._seen(ms_time(record.get("time")))
        if kind == "metadata":
            self.protocol = as_str(record.get("protocol_version"))
            self.created = ms_time(record.get("created_at")) or self.created
        elif kind in ("config.update", "profile.bind"):
            self.model = as_str(record.get("modelAlias")) or self.model
            self.effort = _effort(record) or self.effort
            self.cwd = (
                as_str(record.get("cwd"))
                or text_of(record.get("environmentDisclosure"), "cwd")
                or self.cwd
            )
        elif kind == "llm.request":
            model = as_str(record.get("modelAlias")) or as_str(record.get("model"))
            self.model = model or self.model
            self.effort = _effort(record) or self.effort
        elif kind == "permission.set_mode":
            self.mode = as_str(record.get("mode")) or self.mode
        if isinstance(kind, str) and kind in _TALK:
            self.talked = True
        if self.prompt is None:
            if kind == "turn.prompt" and _origin(record) == "user":
                self.prompt = one_line(parts_text(record.get("input")), limit=None)
            elif kind == "context.append_message":
                message = obj(record, "message")
                if message.get("role") == "user" and "origin" not in message:
                    self.prompt = one_line(
                        parts_text(message.get("content")), limit=None
                    )

    def stamp(self, data: bytes) -> None:
        at = data.rfind(b'"time":')
        match = _TIME.match(data, at) if at >= 0 else None
        if match:
            self._seen(ms_time(int(match.group(1))))

    def _seen(self, time: datetime | None) -> None:
        if time is not None and (self.updated is None or time > self.updated):
            self.updated = time


# --- reading ------------------------------------------------------------------------------


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if not session.path:
        return
    path = Path(session.path)
    folder = path.parent.parent.parent
    reader = _Reader(session, diagnostics, full, folder, reads_children=not offset)
    try:
        yield from reader.wire(path, None, line_start(path, offset))
    except FileNotFoundError:
        diagnostics.problem(f"{path}: vanished while reading")
        return
    if offset:
        return
    # agents no result named (a swarm, an independent agent, a spawn cut off mid-call)
    for child, parent in reader.children.items():
        if child not in reader.spawned:
            owner = None if parent in (None, MAIN) else parent
            yield from reader.spawn(child, owner, None, None, {})


@dataclass(slots=True)
class _Turn:
    """What one agent's wire says so far: its model and effort, and how its turn stands."""

    model: str | None = None
    effort: str | None = None
    ended: bool = False  # a turn_end since the last prompt
    cancelled: bool = False  # a cancellation said since the last prompt
    # a turn end (time, reason) held until its step's usage record, which kimi writes after
    pending: tuple[datetime | None, str] | None = None
    calls: dict[str, dict[str, object]] = field(default_factory=dict)


# a `usage.record`'s counts, in `Usage`'s order
_COUNTS = ("inputOther", "output", "inputCacheRead", "inputCacheCreation")


class _Reader:
    """Translates the wires of one session's agents into events, in order."""

    def __init__(
        self,
        session: Session,
        diagnostics: Diagnostics,
        full: bool,
        folder: Path,
        *,
        reads_children: bool,
    ) -> None:
        self.diagnostics = diagnostics
        self.full = full
        self.folder = folder
        self.reads_children = reads_children
        self.emit = Emitter(session.id)
        self.at = ("", 0)  # the wire and line read last: where an odd count is said
        self.spawned: set[str] = set()
        # sub-agent id -> parent agent id; and -> the agent it was forked from
        self.children, self.forked = _children(folder)
        # a forked session's wires are copies of its source's up to the fork (its own
        # `createdAt`): what those records billed, the source paid for
        self.forked_at = (
            session.created if session.extra.get("forked_from_id") else None
        )

    def event(
        self, kind: EventKind, time: datetime | None, **fields: Unpack[EventFields]
    ) -> Event:
        return self.emit(kind, time, **fields)

    def wire(self, path: Path, agent: str | None, offset: int) -> Iterator[Event]:
        turn = _Turn()
        # a forked agent's wire opens with a copy of its source's conversation
        # (`context.append_message` records before its own first prompt): told once
        source = self.forked.get(agent) if agent is not None else None
        copied: list[datetime | None] = []
        for line, record in files.iter_records(
            path, self.diagnostics, offset=offset, full=self.full
        ):
            self.at = (str(path), line.number)
            kind = type_tag(record.get("type"))
            if turn.pending is not None and kind != "usage.record":
                yield self.turn_end(turn, agent)
            if kind == "metadata":
                continue
            if not isinstance(kind, str):
                self.diagnostics.unknown_type("<no type>")
                continue
            if kind in _IGNORED:
                continue
            time = ms_time(record.get("time"))
            if source is not None:
                if kind == "context.append_message":
                    copied.append(time)
                    continue
                if kind in _OWN_START:
                    yield from self.copied(source, copied, agent)
                    source = None
            yield from self.record(kind, record, time, agent, turn)
        if source is not None:
            yield from self.copied(source, copied, agent)
        if turn.pending is not None:
            yield self.turn_end(turn, agent)

    def copied(
        self, source: str, times: list[datetime | None], agent: str | None
    ) -> Iterator[Event]:
        """One note for the conversation a fork was seeded with, instead of all of it
        again (its source's own events show it)."""
        if times:
            yield self.event(
                "meta",
                times[0],
                agent_id=agent,
                text=copied_note(source),
                extra={"forked_from": source, "inherited_messages": len(times)},
            )

    def turn_end(self, turn: _Turn, agent: str | None) -> Event:
        """The turn end `step.end` announced (numbered now, so that seq stays in order)."""
        time, reason = turn.pending or (None, "")
        turn.pending = None
        return self.event("turn_end", time, agent_id=agent, extra={"reason": reason})

    def record(
        self,
        kind: str,
        record: Mapping[str, object],
        time: datetime | None,
        agent: str | None,
        turn: _Turn,
    ) -> Iterator[Event]:
        if kind in ("turn.prompt", "turn.steer"):
            if kind == "turn.prompt":
                turn.ended = turn.cancelled = False
            yield from self.prompt(kind, record, time, agent)
        elif kind == "context.append_loop_event":
            yield from self.loop_event(obj(record, "event"), time, agent, turn)
        elif kind == "context.append_message":
            yield from self.message(obj(record, "message"), time, agent, turn)
        elif kind == "usage.record":
            if self.forked_at is None or time is None or time >= self.forked_at:
                yield self.usage(record, time, agent, turn)
            if turn.pending is not None:
                yield self.turn_end(turn, agent)
        elif kind in ("config.update", "profile.bind"):
            yield from self.config(record, time, agent, turn)
        elif kind == "llm.request":
            turn.model = (
                as_str(record.get("modelAlias"))
                or as_str(record.get("model"))
                or turn.model
            )
            attempt = as_str(record.get("attempt"))
            if attempt and not attempt.startswith("1/"):
                yield self.event(
                    "error",
                    time,
                    agent_id=agent,
                    text=f"model request retried (attempt {attempt})",
                    extra={"retry": True, "retrying": True},  # kimi tries again
                )
        elif kind in ("turn.cancel", "turn.ended", "turn.step.interrupted"):
            yield from self.turn_over(kind, record, time, agent, turn)
        elif kind == "turn.step.retrying":
            yield self.event(
                "error",
                time,
                agent_id=agent,
                text="step retried",
                extra={"retry": True, "retrying": True},  # kimi tries again
            )
        elif kind == "context.apply_compaction":
            summary = record.get("summary")
            text = (
                parts_text(as_dict(summary).get("content"))
                if isinstance(summary, dict)
                else shown_text(summary) or shown_text(record.get("contextSummary"))
            )
            yield self.event(
                "compaction",
                time,
                agent_id=agent,
                text=text,
                extra={
                    "compacted": as_int(record.get("compactedCount")),
                    "tokens_before": as_int(record.get("tokensBefore")),
                },
            )
        elif kind == "permission.set_mode":
            mode = as_str(record.get("mode"))
            yield self.event(
                "meta",
                time,
                agent_id=agent,
                text=f"permission mode: {mode}",
                extra={"permission_mode": mode},
            )
        elif kind in ("plan_mode.enter", "plan_mode.exit", "plan_mode.cancel"):
            on = kind == "plan_mode.enter"
            yield self.event(
                "meta",
                time,
                agent_id=agent,
                text="plan mode on" if on else "plan mode off",
                extra={"plan_mode": on},
            )
        elif kind == "context.clear":
            yield self.event(
                "meta",
                time,
                agent_id=agent,
                text="context cleared",
                extra={"cleared": True},
            )
        elif kind == "subagent.spawned":
            # 2.x names the child and the call that launched it, before the call's result
            child = as_str(record.get("subagentId"))
            if child and child not in self.spawned:
                yield from self.spawn(
                    child,
                    agent,
                    as_str(record.get("parentToolCallId")) or None,
                    as_str(record.get("description")),
                    {"agent_type": as_str(record.get("subagentName"))},
                )
        elif kind in ("subagent.failed", "subagent.cancelled"):
            child = as_str(record.get("subagentId"))
            status = kind.rpartition(".")[2]
            why = shown_text(record.get("error"))
            yield self.event(
                "meta",
                time,
                agent_id=agent,
                text=f"sub-agent {child} {status}" + (f": {why}" if why else ""),
                # the end the tree notes: a cancelled one stopped, as the user asked
                extra={
                    "child_id": child,
                    "status": status,
                    "subagent_status": "failed" if status == "failed" else "done",
                },
            )
        elif kind == "context.undo":
            count = as_int(record.get("count"))
            yield self.event(
                "meta",
                time,
                agent_id=agent,
                text=f"undid {count_of(count, 'message')}",
                extra={"undo": count},
            )
        else:
            self.diagnostics.unknown_type(kind)

    def prompt(
        self,
        kind: str,
        record: Mapping[str, object],
        time: datetime | None,
        agent: str | None,
    ) -> Iterator[Event]:
        origin = _origin(record) or "user"
        text = parts_text(record.get("input"))
        extra: dict[str, JSONValue] = {"steer": True} if kind == "turn.steer" else {}
        if origin != "user":
            extra["origin"] = origin
        # a sub-agent's brief comes from its parent ("system_trigger"): its user input
        if origin in _TYPED or (origin == "system_trigger" and agent is not None):
            yield self.event("user", time, agent_id=agent, text=text, extra=extra)
        else:
            yield self.event("meta", time, agent_id=agent, text=text, extra=extra)

    def config(
        self,
        record: Mapping[str, object],
        time: datetime | None,
        agent: str | None,
        turn: _Turn,
    ) -> Iterator[Event]:
        model = as_str(record.get("modelAlias"))
        effort = _effort(record)
        changed: dict[str, JSONValue] = {}
        if model and model != turn.model:
            changed["model"] = turn.model = model
        if effort and effort != turn.effort:
            changed["effort"] = turn.effort = effort
        if changed:
            text = ", ".join(
                f"{'thinking' if key == 'effort' else key}: {value}"
                for key, value in changed.items()
            )
            yield self.event("meta", time, agent_id=agent, text=text, extra=changed)

    def turn_over(
        self,
        kind: str,
        record: Mapping[str, object],
        time: datetime | None,
        agent: str | None,
        turn: _Turn,
    ) -> Iterator[Event]:
        """A cancelled, failed or finished turn; kimi may say so twice (cancel, then end)."""
        reason = as_str(record.get("reason"))
        if kind == "turn.step.interrupted":
            yield self.event(
                "error",
                time,
                agent_id=agent,
                text=f"step interrupted: {reason or as_str(record.get('message'))}",
            )
        elif kind == "turn.cancel" or reason == "cancelled":
            if not turn.cancelled:
                turn.cancelled = True
                # the user stopped it: an interruption, not a failure
                yield self.event(
                    "error",
                    time,
                    agent_id=agent,
                    text="turn cancelled",
                    extra={"interrupted": True},
                )
        elif reason in ("failed", "blocked"):
            message = text_of(record.get("error"), "message")
            text = f"turn {reason}: {message}" if message else f"turn {reason}"
            yield self.event("error", time, agent_id=agent, text=text)
        elif not turn.ended:
            turn.ended = True
            yield self.event("turn_end", time, agent_id=agent, extra={"reason": reason})

    def usage(
        self,
        record: Mapping[str, object],
        time: datetime | None,
        agent: str | None,
        turn: _Turn,
    ) -> Event:
        usage = obj(record, "usage")
        scope = as_str(record.get("usageScope"))
        if any(odd_count(usage.get(key)) for key in _COUNTS):
            self.diagnostics.damage(*self.at, ODD_COUNT)
        # each 0 below 0: a broken count would take as much off the rest
        given, output, cache_read, cache_write = (
            max(0, as_int(usage.get(key))) for key in _COUNTS
        )
        model = as_str(record.get("model")) or turn.model
        return self.event(
            "usage",
            time,
            agent_id=agent,
            usage=Usage(given, output, cache_read, cache_write, model=model),
            extra={"scope": scope} if scope else {},
        )

    def loop_event(
        self,
        event: Mapping[str, object],
        time: datetime | None,
        agent: str | None,
        turn: _Turn,
    ) -> Iterator[Event]:
        kind = type_tag(event.get("type"))
        if kind == "step.begin":
            return
        if kind == "content.part":
            yield from self.part(as_dict(event.get("part")), time, agent)
        elif kind == "tool.call":
            call_id = as_str(event.get("toolCallId"))
            name = as_str(event.get("name"))
            arguments = as_dict(event.get("args"))
            if call_id:
                turn.calls[call_id] = {"name": name, **arguments}
            yield self.event(
                "tool_call",
                time,
                agent_id=agent,
                tool=name,
                call_id=call_id,
                extra={"input": shown_json(event.get("args"))},
            )
        elif kind == "tool.result":
            call_id = as_str(event.get("toolCallId"))
            result = obj(event, "result")
            text = parts_text(result.get("output"))
            child = _spawned(text)
            if (
                child is not None
                and child in self.children
                and child not in self.spawned
            ):
                call = turn.calls.get(call_id or "", {})
                agent_type = as_str(call.get("subagent_type")) or _line_value(
                    text, "actual_subagent_type"
                )
                yield from self.spawn(
                    child,
                    agent,
                    call_id,
                    as_str(call.get("description")),
                    {"agent_type": agent_type},
                )
            yield self.event(
                "tool_result",
                time,
                agent_id=agent,
                call_id=call_id,
                text=agent_reply(text),
                is_error=result.get("isError") is True,
            )
        elif kind == "step.end":
            finish = as_str(event.get("finishReason"))
            if finish in ("error", "interrupted"):
                label = "step failed" if finish == "error" else "step interrupted"
                yield self.event("error", time, agent_id=agent, text=label)
            elif finish not in (None, "tool_use", "tool_calls") and not turn.ended:
                turn.ended = True  # told after the step's usage record, if one follows
                turn.pending = (time, finish)
        else:
            self.diagnostics.unknown_type(f"context.append_loop_event/{kind}")

    def message(
        self,
        message: Mapping[str, object],
        time: datetime | None,
        agent: str | None,
        turn: _Turn,
    ) -> Iterator[Event]:
        """A context message: only those no prompt or loop record already told of."""
        role = message.get("role")
        if role == "user":
            if "origin" not in message:  # an imported history; live ones mirror prompts
                text = parts_text(message.get("content"))
                yield self.event("user", time, agent_id=agent, text=text)
        elif role == "assistant":
            for part in dicts(message, "content"):
                yield from self.part(part, time, agent)
            for call in dicts(message, "toolCalls"):
                function = obj(call, "function")
                name = as_str(call.get("name")) or as_str(function.get("name"))
                raw = call.get("arguments", function.get("arguments"))
                arguments = shown_arguments(raw)
                call_id = as_str(call.get("id"))
                if call_id:
                    turn.calls[call_id] = {"name": name, **as_dict(arguments)}
                yield self.event(
                    "tool_call",
                    time,
                    agent_id=agent,
                    tool=name,
                    call_id=call_id,
                    text=arguments if isinstance(arguments, str) else None,
                    extra={"input": arguments},
                )
        elif role == "tool":
            yield self.event(
                "tool_result",
                time,
                agent_id=agent,
                call_id=as_str(message.get("toolCallId")),
                text=agent_reply(parts_text(message.get("content"))),
                is_error=message.get("isError") is True,
            )
        elif role != "system":
            self.diagnostics.unknown_type(f"context.append_message/{role}")

    def part(
        self, part: Mapping[str, object], time: datetime | None, agent: str | None
    ) -> Iterator[Event]:
        kind = type_tag(part.get("type"))
        if kind == "text":
            text = shown_text(part.get("text"))
            if text and text.strip():
                yield self.event("assistant", time, agent_id=agent, text=text)
        elif kind == "think":
            text = shown_text(part.get("think"))
            if text and text.strip():
                yield self.event("thinking", time, agent_id=agent, text=text)
        elif isinstance(kind, str) and kind.endswith("_url"):
            yield self.event("assistant", time, agent_id=agent, text=_media(part))
        else:
            self.diagnostics.unknown_type(f"content.part/{kind}")

    def spawn(
        self,
        child: str,
        owner: str | None,
        call_id: str | None,
        description: str | None,
        extra: Mapping[str, JSONValue],
    ) -> Iterator[Event]:
        """The `subagent` event, then the sub-agent's own wire (not when reading a tail)."""
        self.spawned.add(child)
        # the id names the sub-agent's folder only where it is one plain name
        plain = folders.plain_name(child)
        path = self.folder / "agents" / child / WIRE
        time = _first_time(path) if self.reads_children and plain else None
        yield self.event(
            "subagent",
            time,
            agent_id=owner,
            call_id=call_id,
            text=description,
            extra={"child_id": child, **extra},
        )
        if not self.reads_children:
            return
        try:
            if plain and path.is_file():
                yield from self.wire(path, child, 0)
            else:  # named by state.json, a result or a spawn record: it was made
                self.diagnostics.child_missing("kimi", child)
        except FileNotFoundError:
            self.diagnostics.problem(f"{path}: vanished while reading")


# --- resuming -----------------------------------------------------------------------------


INSTALL_HINT = "curl -fsSL https://code.kimi.com/kimi-code/install.sh | bash"


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`kimi --session <session folder name>` in the session's work directory.

    Kimi Code restores the session's model, thinking and permission mode itself; its only
    mode flags (`--yolo`, `--auto`) loosen approval and none lowers it, so a session left
    at one is marked `restores_looser` (refused) unless `keep_permissions` passes it.
    """
    if not session.cwd or not session.path:
        return None
    path = Path(session.path)
    folder = path.parent.parent.parent.name if path.name == WIRE else path.parent.name
    argv = ["kimi", "--session", folder or f"{_SESSION_PREFIX}{session.id}"]
    looser = ""
    if session.permission_mode in ("yolo", "auto"):
        if keep_permissions:
            argv.append(f"--{session.permission_mode}")
        else:  # restored all the same (lowered in the app with /permission)
            looser = f"{session.permission_mode} permission mode"
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd,
        program="kimi",
        install_hint=INSTALL_HINT,
        restores_looser=looser,
    )


# --- small helpers ------------------------------------------------------------------------


def _children(folder: Path) -> tuple[dict[str, str | None], dict[str, str]]:
    """The session's agents other than the lead, each with its parent's id: those
    state.json lists, then any other agent folder that holds a wire; and those state.json
    says were forked (`forkedFrom`), each with the agent it was copied from."""
    state = files.read_json_file(folder / STATE, limit=4 * 1024 * 1024)
    found: dict[str, str | None] = {}
    forked: dict[str, str] = {}
    for agent, meta in obj(state, "agents").items():
        if agent != MAIN:
            found[agent] = as_str(as_dict(meta).get("parentAgentId"))
            source = as_str(as_dict(meta).get("forkedFrom"))
            if source:
                forked[agent] = source
    for entry in folders.entries(folder / "agents", nested=True):
        if (
            entry.is_dir()
            and entry.name not in (MAIN, *found)
            and (Path(entry.path) / WIRE).is_file()
        ):
            found[entry.name] = None
    return found, forked


def _last_time(wire: Path) -> datetime | None:
    """The latest time among the wire's last complete records (None without a wire):
    from its last few kilobytes, else from as much as its listing reads (a long last
    record). The latest, not the last line's: a wire's lines are not always in time order."""
    for nbytes in (_LAST_BYTES, files.TAIL_BYTES):
        try:
            tail = files.tail_lines(wire, nbytes)
        except OSError:
            return None
        summary = _Summary()
        for line in tail:
            if line.complete:
                summary.stamp(line.data)
        if summary.updated is not None:
            return summary.updated
    return None


def _first_time(path: Path) -> datetime | None:
    """The sub-agent's start: its wire's `created_at`."""
    try:
        head = files.head_lines(path, max_lines=1)
    except OSError:
        return None
    record = files.parse_json(head[0]) if head else None
    return ms_time(record.get("created_at")) if record else None


def _origin(record: Mapping[str, object]) -> str | None:
    origin = record.get("origin")
    return as_str(origin.get("kind")) if isinstance(origin, dict) else as_str(origin)


def _effort(record: Mapping[str, object]) -> str | None:
    return as_str(record.get("thinkingEffort")) or as_str(record.get("thinkingLevel"))


def _spawned(text: str | None) -> str | None:
    """The agent id an `Agent` tool result names on a line of its own."""
    match = _SPAWNED.search(text[:2000]) if text else None
    return match.group(1) if match else None


_SUMMARY = "\n\n[summary]\n"
_RESUME_HINT = "\n\nresume_hint: "  # Kimi Code's note to the model after the summary


def agent_reply(text: str | None) -> str | None:
    """An `Agent` tool's answer to the lead is a header (`agent_id:`, `status:`, …), then
    `[summary]` and the words the sub-agent sent back: those words (with its status where
    it did not complete); any other text as it is."""
    if not text or not text.startswith("agent_id: "):
        return text
    head, found, rest = text.partition(_SUMMARY)
    if not found:
        return text
    reply = rest.partition(_RESUME_HINT)[0]
    status = _line_value(head, "status")
    return f"{reply}\n[{status}]" if status and status != "completed" else reply


def _line_value(text: str | None, key: str) -> str | None:
    match = re.search(rf"^{key}: (\S+)", text[:2000], re.MULTILINE) if text else None
    return match.group(1) if match else None


def parts_text(
    value: object, media: Callable[[Mapping[str, object]], str] | None = None
) -> str | None:
    """A prompt, message or tool output: a string, or content parts (a media part as
    `media` notes it; Kimi CLI's reader passes its own)."""
    if isinstance(value, str):
        return shown_text(value)
    if not isinstance(value, list):
        return None
    texts: list[str] = []
    for part in value:
        if not isinstance(part, dict):
            continue
        kind = type_tag(part.get("type"))
        if kind == "text":
            text = shown_text(part.get("text"))
            if text:
                texts.append(text)
        elif isinstance(kind, str) and kind.endswith("_url"):
            texts.append((media or _media)(part))
    return "\n".join(texts) if texts else None


def _media(part: Mapping[str, object]) -> str:
    """A note for an image, audio or video part (`imageUrl`, or `image_url` in older files)."""
    kind = str(part.get("type", "media")).removesuffix("_url")
    holder = as_dict(part.get(f"{kind}Url")) or as_dict(part.get(f"{kind}_url"))
    url = holder.get("url")
    if isinstance(url, str):
        if url.startswith("data:") or files.elided(url):
            return f"[{kind}, {files.human_bytes(decoded_size(url))}]"
        if url.startswith(("http://", "https://")):
            return f"[{kind}: {url}]"
    return f"[{kind}]"
