"""One Claude Code transcript file translated into events, in file order.

A `Stream` knows one file; `_claude_read` merges the streams of a session by time. The
rules (usage merging, turn ends, abandoned branches) are described in `claude.py`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from .. import files
from ..diagnostics import ODD_COUNT, Diagnostics
from ..idtable import IdTable
from ..model import Event, EventKind, Extra, JSONValue, Usage
from . import _claude_records as rec
from ._values import copied_note, draft, type_tag

RESULT_BUDGET = 16 * 1024  # characters of `toolUseResult` kept in a tool_result's extra


@dataclass(slots=True)
class Survey:
    """What a first pass over the main file found: abandoned branches, side-chain links."""

    abandoned: dict[str, str] = field(
        default_factory=dict
    )  # uuid -> branch's first uuid
    branch_lines: dict[str, int] = field(default_factory=dict)
    branch_spawns: dict[str, int] = field(default_factory=dict)
    abandoned_calls: set[str] = field(default_factory=set)
    side_root: dict[str, str] = field(
        default_factory=dict
    )  # inline side-chain uuid -> root
    root_agent: dict[str, str] = field(
        default_factory=dict
    )  # side-chain root -> agent id
    inline_children: dict[str, str] = field(
        default_factory=dict
    )  # spawn call -> agent id
    result_agents: dict[str, str] = field(
        default_factory=dict
    )  # spawn call -> result agentId
    long_lines: rec.LongLines = field(default_factory=rec.LongLines)


@dataclass(slots=True)
class Child:
    """A sub-agent transcript: a file, or an inline side chain when `path` is None."""

    agent_id: str
    path: Path | None
    agent_type: str | None = None
    description: str | None = None
    call_id: str | None = None
    parent_agent: str | None = None
    first: float | None = None  # its first timestamp, for a file nothing links to
    task: int | None = None  # its first user line's `task_key`, for the same
    # an observer (`isObserver` in its meta, 2.1.33x): a background agent Claude Code
    # starts beside one it watches, fed that one's activity; its agents view leaves it out
    observer: bool = False


@dataclass(slots=True)
class Context:
    """What the streams of one read share: sub-agent links and the responses billed."""

    session_id: str
    diagnostics: Diagnostics
    full: bool
    # the main file is a sub-agent's own transcript (read as a session of its own): its
    # lines, all marked isSidechain, are the lead's, not an inline side chain's
    side_chain_is_lead: bool = False
    children: dict[str, Child] = field(default_factory=dict)  # agent id -> child
    by_call: dict[str, str] = field(default_factory=dict)  # spawn call -> agent id
    started: set[str] = field(default_factory=set)
    announced: set[str] = field(default_factory=set)
    # response keys billed: one a response, and a replay may come far from its first copy
    # (a `/btw` side chain repeats the lead's ids), so all are kept, packed (`IdTable`)
    billed: IdTable = field(default_factory=IdTable)
    # agent id -> its transcript's place, holding no regular file (a pipe): said so
    not_files: dict[str, str] = field(default_factory=dict)


_NAMED_FILES = 10  # a turn's changed files named in full; the rest counted


def _files_changed(diff: object) -> tuple[str, Extra]:
    """What a `subagent_file_changes` line says: the files sub-agents and Stop hooks
    changed in a turn (their `bashEditDiff`, names without hunks)."""
    diff = diff if isinstance(diff, dict) else {}
    listed = diff.get("changedFiles")
    names = (
        [rec.text(n) for n in listed if isinstance(n, str) and n]
        if isinstance(listed, list)
        else []
    )
    if not names:
        return "sub-agents or hooks changed files Claude Code could not list", {
            "changed_files": None
        }
    shown = ", ".join(names[:_NAMED_FILES])
    if len(names) > _NAMED_FILES:
        shown += f" and {len(names) - _NAMED_FILES} more"
    plural = "file" if len(names) == 1 else "files"
    said = f"sub-agents or hooks changed {len(names)} {plural}: {shown}"
    if diff.get("unavailable") is True:  # Claude Code lost track of some
        said += " (maybe more)"
    return said, {"changed_files": len(names)}


def _withdrawn(prompts: object) -> tuple[str, Extra]:
    """What a `blocked_prompts_withdrawn` line says (2.1.337): prompts a safety check
    blocked, which the model from then on sees as a stand-in; the prompts still show as
    typed, as Claude Code keeps them on screen with the same notice."""
    count = len(prompts) if isinstance(prompts, list) else 0
    if count > 1:
        said = f"a safety check blocked {count} earlier prompts: Claude no longer sees them"
    else:  # one, or a line that lost its list (2.1.337 writes none empty)
        said = "a safety check blocked 1 earlier prompt: Claude no longer sees it"
    return said, {"withdrawn_prompts": count or None}


def _stopped(hook: dict[str, object]) -> bool:
    """Whether a `hook_success` attachment is a SubagentStop hook that let the sub-agent
    stop: a hook may exit 0 and still answer `{"decision": "block"}` to keep it going."""
    if hook.get("hookEvent") != "SubagentStop":
        return False
    said = hook.get("stdout")
    if not isinstance(said, str) or "block" not in said or len(said) > 1 << 16:
        return True
    try:
        answer = files.loads(said.encode())
    except ValueError:
        return True
    return not (isinstance(answer, dict) and answer.get("decision") == "block")


def _total(spent: tuple[Usage, ...]) -> int:
    return sum(used.total for used in spent)


@dataclass(slots=True)
class _Response:
    """One API response while its lines are still coming in."""

    key: str
    usage: Usage
    time: datetime | None
    message_id: str | None
    request_id: str | None
    abandoned: bool = False
    advisors: tuple[Usage, ...] = ()  # the advisor's calls, billed at its model's rates
    cost: float | None = None  # Claude Code's own `costUSD` (before 1.0.9)


@dataclass(slots=True)
class _Agent:
    """Per-agent state within one file (1.0 side chains share the main file)."""

    model: str | None = None
    permission_mode: str | None = None
    mode: str | None = None
    branch: str | None = None
    cwd: str | None = None
    response: _Response | None = None
    turn_ended: bool = False


class Stream:
    """Translate one transcript file into events (seq 0; the merge numbers them)."""

    def __init__(
        self,
        context: Context,
        path: Path,
        agent_id: str | None,
        *,
        survey: Survey | None = None,
        child: Child | None = None,
        offset: int = 0,
    ) -> None:
        self.context = context
        self.path = path
        self.agent_id = agent_id
        self.survey = survey or Survey()
        # the survey's pass compacted the main file's long lines: take them from it
        self.long_lines = survey.long_lines if survey is not None else None
        self.child = child
        self.offset = offset
        self.agents: dict[str | None, _Agent] = {}
        self.time: datetime | None = None
        self.stamped = False
        self.version: str | None = None
        self.compaction: Event | None = None  # held until its summary line arrives
        # `follow` drew the held compaction at a quiet end of the file: a summary line
        # written after it is not drawn again
        self.settled = False
        # pull requests said (per agent) and origins said ("derived"): each told once
        self.links: set[tuple[str | None, str]] = set()
        self.task_ends: set[str] = set()  # background tasks whose end was noted
        self.sources: dict[str, bool] = {}  # a fork's source -> its file is beside
        self.unkeyed = itertools.count()
        self.number = 0  # the line read last: where damage is met

    def events(self) -> Iterator[Event]:
        for number, compacted, record in rec.records(
            self.path,
            self.context.diagnostics,
            full=self.context.full,
            offset=self.offset,
            long_lines=self.long_lines,
        ):
            yield from self._feed(record, number, compacted)
        yield from self.finish()

    def feed(self, line: files.Line, record: dict[str, object]) -> Iterator[Event]:
        """The events of one line; state carries over to the next (`follow` feeds lines live)."""
        return self._feed(record, line.number, line.compacted)

    def _feed(
        self, record: dict[str, object], number: int, compacted: bool
    ) -> Iterator[Event]:
        self.number = number
        get = record.get
        kind = get("type")
        stamp = rec.moment(get("timestamp"))
        if stamp is not None:
            self.stamped = True
            self.time = stamp
        else:
            self.stamped = False
        version = get("version")
        if version and isinstance(version, str):
            self.version = version
        agent = self.agent_id
        if (
            agent is None
            and get("isSidechain") is True
            and not self.context.side_chain_is_lead
        ):
            agent = self._agent_of(record)
        if not isinstance(kind, str):
            self.context.diagnostics.skip(str(self.path), number, "bad value")
            return
        if (
            self.compaction is not None
            and kind in rec.CONVERSATION
            and not (kind == "user" and get("isCompactSummary") is True)
        ):
            yield self.compaction  # no summary followed the boundary
            self.compaction = None
        if kind in rec.CONVERSATION and not (
            kind == "user" and get("isCompactSummary") is True
        ):
            self.settled = False
        abandoned = self.survey.abandoned
        if abandoned:
            uuid = rec.string(get("uuid"))
            branch = abandoned.get(uuid) if uuid else None
            if branch is not None:
                yield from self._abandoned(record, agent, branch, uuid)
                return
        if agent is not None and agent not in self.context.announced:
            yield from self._announce(agent)
        if kind in rec.CONVERSATION:
            if kind == "user" and len(self.agents) > 1:
                yield from self._side_chains_answered(get("message"), agent)
            if agent is None and (forked := get("forkedFrom")) is not None:
                yield from self._forked_from(forked)
            state = self.agents.get(agent) or self._state(agent)
            cwd, git_branch = get("cwd"), get("gitBranch")
            if cwd != state.cwd and (
                changed := self._change(agent, "cwd", rec.string(cwd))
            ):
                yield changed
            if git_branch != state.branch and (
                changed := self._change(agent, "branch", rec.string(git_branch))
            ):
                yield changed
        handler = _HANDLERS.get(kind)
        if handler is not None:
            yield from handler(self, record, agent, compacted)
        elif kind not in rec.IGNORED_TYPES:
            self.context.diagnostics.unknown_type(kind, self.version)

    def settle(self, quiet: bool = False) -> Iterator[Event]:
        """What the end of the file settles while `follow` reads on: a compaction no
        summary line followed (Qoder may never write one), drawn once; with `quiet` (the
        file silent a while: no more lines of its responses to come), their usage too,
        as the end of a whole read bills it."""
        if self.compaction is not None:
            yield self.compaction
            self.compaction = None
            self.settled = True
        if quiet:
            for agent in list(self.agents):
                yield from self._bill(agent)

    def finish(self) -> Iterator[Event]:
        """What the end of the file settles: a held compaction, responses still pending."""
        if self.compaction is not None:
            yield self.compaction
            self.compaction = None
        for agent in list(self.agents):
            yield from self._bill(agent)

    # -- helpers ---------------------------------------------------------------------

    def _event(
        self,
        kind: EventKind,
        agent: str | None,
        *,
        text: str | None = None,
        tool: str | None = None,
        call_id: str | None = None,
        is_error: bool = False,
        extra: Extra | None = None,
    ) -> Event:
        """An event at this line's time (estimated from earlier lines when it has none)."""
        time = self.time
        return draft(
            self.context.session_id,
            kind,
            time,
            not self.stamped and time is not None,
            agent,
            text,
            tool,
            call_id,
            is_error,
            None,
            extra if extra is not None else {},
        )

    def _state(self, agent: str | None) -> _Agent:
        state = self.agents.get(agent)
        if state is None:
            state = self.agents[agent] = _Agent()
        return state

    def _agent_of(self, record: dict[str, object]) -> str | None:
        if self.agent_id is not None:
            return self.agent_id
        if record.get("isSidechain") is not True:
            return None
        uuid = rec.string(record.get("uuid"))
        root = self.survey.side_root.get(uuid) if uuid else None
        if root is not None:
            return self.survey.root_agent.get(root, root)
        return rec.string(record.get("agentId")) or "sidechain"

    def _announce(self, agent: str) -> Iterator[Event]:
        """A `subagent` event for a child whose spawning call nothing links to."""
        self.context.announced.add(agent)
        child = (
            self.child if self.child is not None and agent == self.agent_id else None
        )
        yield self._event(
            "subagent",
            child.parent_agent if child else None,
            text=child.description if child else None,
            extra={
                "child_id": agent,
                "agent_type": child.agent_type if child else None,
                **({"observer": True} if child and child.observer else {}),
            },
        )

    def _change(
        self, agent: str | None, name: str, value: str | None, *, first: bool = False
    ) -> Event | None:
        """A meta event when `name` changes (with `first`, also when it is first known)."""
        state = self._state(agent)
        previous = getattr(state, name)
        if not value or value == previous:
            return None
        setattr(state, name, value)
        if previous is None and not first:
            return None
        label = name.replace("_", " ")
        return self._event("meta", agent, text=f"{label}: {value}", extra={name: value})

    # -- usage: one event per response, the largest copy, dated by its last line ---------

    def _copy(self, record: dict[str, object]) -> _Response | None:
        """This line's copy of its response's usage; None for lines that bill nothing."""
        message = record.get("message")
        if not isinstance(message, dict) or record.get("isApiErrorMessage") is True:
            return None
        return self._copy_of(record, message, rec.string(message.get("model")))

    def _billed_in_source(self, forked: object) -> bool:
        """Whether this line is a fork's copy of a response its source's file, beside
        this one, still holds (and bills): `usage` counts it there too."""
        if forked is None or self.agent_id is not None:
            return False
        origin = (
            rec.string(forked.get("sessionId")) if isinstance(forked, dict) else None
        )
        if not origin or origin == self.context.session_id:
            return False
        there = self.sources.get(origin)
        if there is None:  # an id, never a path
            named = origin.strip(".") and not any(c in origin for c in "/\\\0")
            there = bool(named) and (self.path.parent / f"{origin}.jsonl").is_file()
            self.sources[origin] = there
        return there

    def _copy_of(
        self, record: dict[str, object], message: dict[str, object], model: str | None
    ) -> _Response | None:
        """`_copy` of a line whose message is known, and no API error."""
        raw = message.get("usage")
        if model == rec.SYNTHETIC or not isinstance(raw, dict):
            return None  # `usage` bills no such line
        if rec.odd_usage(raw):
            # billed as `usage` bills it (0, or a fraction's whole part), said as it says
            self.context.diagnostics.damage(str(self.path), self.number, ODD_COUNT)
        if "forkedFrom" in record and self._billed_in_source(record["forkedFrom"]):
            return None
        used = rec.usage(raw, model)
        if used is None:
            return None
        # most responses have no iterations, or `[]` (spare the call)
        advisors = rec.advisor_usage(raw, model) if raw.get("iterations") else ()
        message_id = rec.string(message.get("id"))
        request_id = rec.string(record.get("requestId"))
        if message_id is None:
            key = f"line:{id(self)}:{next(self.unkeyed)}"
        else:
            key = f"{message_id}:{request_id}" if request_id else message_id
        # `costUSD` was written before 1.0.9 alone: mostly absent (spare the call)
        cost = record.get("costUSD")
        return _Response(
            key,
            used,
            self.time,
            message_id,
            request_id,
            advisors=advisors,
            cost=None if cost is None else rec.recorded_cost(cost),
        )

    def _settle(self, copy: _Response | None, agent: str | None) -> tuple[Event, ...]:
        """Bill the pending response when this line starts another one."""
        pending = (self.agents.get(agent) or self._state(agent)).response
        if copy is not None and pending is not None and pending.key != copy.key:
            return self._bill(agent)
        return ()

    def _count(
        self, copy: _Response | None, agent: str | None, last: bool
    ) -> Iterable[Event]:
        """A line's copy merged into its response; what it bills. Mostly a tuple, not a
        generator: this runs for every assistant line, and mostly bills nothing."""
        state = self.agents.get(agent) or self._state(agent)
        pending = state.response
        billed: tuple[Event, ...] = ()
        if copy is not None and pending is not None and pending.key == copy.key:
            if copy.usage.total > pending.usage.total:
                pending.usage = copy.usage
                pending.cost = copy.cost
            # most responses consult no advisor: no sums of nothing (totals are >= 0)
            if copy.advisors and _total(copy.advisors) > _total(pending.advisors):
                pending.advisors = copy.advisors
            pending.time = copy.time or pending.time
        elif copy is not None:
            if pending is not None:
                billed = self._bill(agent)
            state.response = copy
        if not last:  # only a response's last line has a stop_reason
            return billed
        # two responses may end here: the second billed after the first
        return billed + self._bill(agent)

    def _side_chains_answered(
        self, message: object, agent: str | None
    ) -> Iterator[Event]:
        """The pending usage of each inline side chain (1.0) whose spawning call this
        line answers: the chain has ended, its last response is billed by its time, as a
        sub-agent's own file bills it at its end, not after the lead's later events."""
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            call = block.get("tool_use_id") if isinstance(block, dict) else None
            child = self.context.by_call.get(call) if isinstance(call, str) else None
            if child is not None and child != agent and child in self.agents:
                yield from self._bill(child)

    def _bill(self, agent: str | None) -> tuple[Event, ...]:
        """The pending response's usage event (and one per advisor model it consulted),
        once per response key in the session."""
        state = self.agents.get(agent) or self._state(agent)
        response, state.response = state.response, None
        if response is None:
            return ()
        billed = self.context.billed
        known = len(billed)
        if billed.add(response.key) < known:  # one lookup: numbered before, so billed
            return ()
        extra: dict[str, JSONValue] = {
            "message_id": response.message_id,
            "request_id": response.request_id,
        }
        if response.abandoned:
            extra["branch"] = "abandoned"
        if response.cost is not None:
            extra["app_cost_usd"] = response.cost
        if not response.advisors:  # the common case: no loop
            if not response.usage.total and not response.usage.credits:
                return ()
            return (self._usage_event(response, agent, response.usage, extra),)
        spent = (
            (response.usage,) if response.usage.total or response.usage.credits else ()
        )
        advisor = {**extra, "advisor": True}
        advisor.pop(
            "app_cost_usd", None
        )  # the response's own figure, not the advisor's
        return (
            *(self._usage_event(response, agent, used, extra) for used in spent),
            *(
                self._usage_event(response, agent, used, advisor)
                for used in response.advisors
            ),
        )

    def _usage_event(
        self,
        response: _Response,
        agent: str | None,
        used: Usage,
        extra: dict[str, JSONValue],
    ) -> Event:
        return draft(
            self.context.session_id,
            "usage",
            response.time,
            False,
            agent,
            None,
            None,
            None,
            False,
            used,
            extra,
        )

    def _abandoned(
        self,
        record: dict[str, object],
        agent: str | None,
        branch: str,
        uuid: str | None,
    ) -> Iterator[Event]:
        """A line of a rewound branch: one meta event for the branch; its usage still bills."""
        if uuid == branch:
            count = self.survey.branch_lines.get(branch, 0)
            spawned = self.survey.branch_spawns.get(branch, 0)
            said = f"rewound: an abandoned branch of {count} lines is not shown"
            if spawned:
                said += f" (with {spawned} sub-agent spawns)"
            info: dict[str, JSONValue] = {
                "uuid": branch,
                "lines": count,
                "subagents": spawned,
            }
            yield self._event(
                "meta", agent, text=said, extra={"abandoned_branch": info}
            )
        copy = self._copy(record) if record.get("type") == "assistant" else None
        if copy is not None:
            copy.abandoned = True
            message = record.get("message")
            yield from self._settle(copy, agent)
            yield from self._count(
                copy,
                agent,
                isinstance(message, dict) and bool(message.get("stop_reason")),
            )

    def _turn_end(
        self, agent: str | None, extra: dict[str, JSONValue]
    ) -> Iterator[Event]:
        """One turn_end per turn, whether end_turn, turn_duration or both say so."""
        state = self._state(agent)
        yield from self._bill(agent)
        if not state.turn_ended:
            state.turn_ended = True
            yield self._event("turn_end", agent, extra=extra)

    def _prompted(self, agent: str | None) -> Iterator[Event]:
        """A new prompt: the previous response is complete and a new turn begins."""
        yield from self._bill(agent)
        self._state(agent).turn_ended = False

    # -- record types ----------------------------------------------------------------

    def _user(
        self, record: dict[str, object], agent: str | None, compacted: bool
    ) -> Iterator[Event]:
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if record.get("isCompactSummary") is True:
            if self.compaction is None and self.settled:
                return  # its compaction was drawn at the end of the read before
            event = self.compaction or self._event("compaction", agent)
            self.compaction = None
            yield replace(event, text=rec.flatten(content) or event.text)
            return
        parts: list[str] = []
        results: list[dict[str, object]] = []
        for block in content if isinstance(content, list) else [content]:
            if isinstance(block, str):
                parts.append(rec.text(block))
            elif isinstance(block, dict):
                kind = type_tag(block.get("type"))
                if kind == "tool_result":
                    results.append(block)
                elif kind in ("text", "image", "document"):
                    parts.append(rec.block_text(block))
                else:
                    self.context.diagnostics.unknown_type(f"user/{kind}", self.version)
        said = "\n".join(parts)
        team = rec.teammate_messages(said) if parts else None  # most: results alone
        if team is not None:
            yield from self._teammates(team, agent)
        elif parts and any(part.strip() for part in parts):
            # harness text: a command's expansion, a background task's notification
            injected = rec.from_harness(record)
            if not injected:
                yield from self._prompted(agent)
            mode = rec.string(record.get("permissionMode"))
            if (changed := self._change(agent, "permission_mode", mode)) is not None:
                yield changed
            extra: dict[str, JSONValue] = {"injected": True} if injected else {}
            if agent is None and record.get("entrypoint") == "sdk-cli":
                # `claude -p`: no one to type; it runs until its background tasks end
                extra["headless"] = True
            if not injected and (command := rec.command_line(said)) is not None:
                said = command  # what was typed, not the wrapper it is recorded in
            yield self._event("user", agent, text=said, extra=extra)
            if injected:
                # what answers it (a background task's notification) is a turn of its own
                self._state(agent).turn_ended = False
                yield from self._task_end(said, agent)
        if not results:
            return
        outcome = record.get("toolUseResult")
        single = outcome is not None and len(results) == 1
        ran = _virtual(record)
        for block in results:
            kept: dict[str, JSONValue] = dict(ran) if ran is not None else {}
            if single:
                kept["result"] = rec.bounded(outcome, [RESULT_BUDGET])
                if rec.launched(outcome):
                    kept["launched"] = True
            yield self._event(
                "tool_result",
                agent,
                call_id=rec.string(block.get("tool_use_id")),
                text=rec.flatten(rec.without_agent_trailer(block.get("content")))
                or rec.string(block.get("text"))
                or "",
                is_error=block.get("is_error") is True,
                extra=kept,
            )

    def _task_end(self, said: str, agent: str | None) -> Iterator[Event]:
        """A background task's end, as its `<task-notification>` tells the lead: once,
        though it is recorded as a queued command and again as the line handed over."""
        ended = rec.task_end(said)
        if ended is None:
            return
        call_id, task_id, status, summary = ended
        key = call_id or task_id or ""
        if key in self.task_ends:
            return
        self.task_ends.add(key)
        extra: dict[str, JSONValue] = {"subagent_status": status}
        if task_id:
            extra["child_id"] = task_id
        text = (
            summary or f"background task {'failed' if status == 'failed' else 'ended'}"
        )
        yield self._event("meta", agent, call_id=call_id, text=text, extra=extra)

    def _teammates(
        self, messages: list[tuple[str, str]], agent: str | None
    ) -> Iterator[Event]:
        """What teammates sent (agent teams): each message is input from its sender, a
        protocol note (idle, shutdown) a meta line."""
        for sender, body in messages:
            note = rec.teammate_note(body)
            if note is not None:
                yield self._event(
                    "meta",
                    agent,
                    text=f"{sender}: {note}",
                    extra={"from_agent": sender},
                )
            else:
                yield from self._prompted(agent)
                yield self._event(
                    "user", agent, text=body, extra={"from_agent": sender}
                )

    def _assistant(
        self, record: dict[str, object], agent: str | None, compacted: bool
    ) -> Iterator[Event]:
        message = record.get("message")
        if not isinstance(message, dict):
            return
        model = rec.string(message.get("model"))
        synthetic = model == rec.SYNTHETIC
        state = self.agents.get(agent) or self._state(agent)
        if (
            not synthetic
            and model != state.model
            and (changed := self._change(agent, "model", model)) is not None
        ):
            yield changed
        content = message.get("content")
        if record.get("isApiErrorMessage") is True:
            status = record.get("apiErrorStatus")
            said = rec.flatten(content) or "API error"
            yield self._event(
                "error",
                agent,
                text=said,
                extra={"status": status} if isinstance(status, int) else {},
            )
            return
        copy = self._copy_of(record, message, model)
        if copy is not None and state.response is not None:
            yield from self._settle(copy, agent)
        virtual = record.get("isVirtual") is True  # what `_virtual` asks first
        for block in (
            content
            if isinstance(content, list)
            else [{"type": "text", "text": content}]
        ):
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":  # `_assistant_block`'s first cases, inline
                said = rec.block_text(block)
                if said.strip():
                    extra: dict[str, JSONValue] = (
                        {"synthetic": True} if synthetic else {}
                    )
                    yield self._event("assistant", agent, text=said, extra=extra)
            elif kind == "tool_use" and not virtual:
                yield from self._tool_call(block, agent, compacted)
            elif (ran := _virtual(record)) is not None and kind == "tool_use":
                # a call a REPL script ran, not the model: marked so, with the script's
                for event in self._assistant_block(block, agent, compacted, synthetic):
                    if event.kind == "tool_call":
                        event = replace(event, extra={**event.extra, **ran})
                    yield event
            else:
                yield from self._assistant_block(block, agent, compacted, synthetic)
        stop = message.get("stop_reason")
        if copy is not None or stop:
            yield from self._count(copy, agent, bool(stop))
        if stop == "end_turn":
            yield from self._turn_end(agent, {"reason": "end_turn"})

    def _assistant_block(
        self,
        block: dict[str, object],
        agent: str | None,
        compacted: bool,
        synthetic: bool,
    ) -> Iterator[Event]:
        kind = type_tag(block.get("type"))
        if kind in ("text", "image"):
            said = rec.block_text(block)
            if said.strip():
                extra: dict[str, JSONValue] = {"synthetic": True} if synthetic else {}
                yield self._event("assistant", agent, text=said, extra=extra)
        elif kind == "thinking":
            thought = block.get("thinking")
            if isinstance(thought, str) and thought.strip():  # often empty: only signed
                yield self._event("thinking", agent, text=rec.text(thought))
        elif kind == "redacted_thinking":
            yield self._event("thinking", agent, text="[redacted thinking]")
        elif kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
            yield from self._tool_call(block, agent, compacted)
        elif isinstance(kind, str) and kind.endswith(
            "_tool_result"
        ):  # server-side tools
            call = rec.string(block.get("tool_use_id"))
            failed = rec.server_tool_error(block)
            yield self._event(
                "tool_result",
                agent,
                call_id=call,
                text=failed or rec.flatten(block.get("content")),
                is_error=failed is not None,
            )
        elif kind == "connector_text":
            connected = rec.string(block.get("text"))
            if connected and connected.strip():
                yield self._event("assistant", agent, text=rec.text(connected))
        elif kind == "container_upload":
            return  # a file handed to the code-execution container
        elif kind == "fallback":
            before, after = block.get("from"), block.get("to")
            old = rec.string(before.get("model")) if isinstance(before, dict) else None
            new = rec.string(after.get("model")) if isinstance(after, dict) else None
            yield from self._fallback(agent, old, new)
        else:
            self.context.diagnostics.unknown_type(f"assistant/{kind}", self.version)

    def _fallback(
        self, agent: str | None, old: str | None, new: str | None
    ) -> Iterator[Event]:
        if new:
            self._state(agent).model = new
            said = f"model fell back from {old} to {new}"
            yield self._event("meta", agent, text=said, extra={"model": new})

    def _tool_call(
        self, block: dict[str, object], agent: str | None, compacted: bool
    ) -> Iterator[Event]:
        call = rec.string(block.get("id"))
        name = rec.string(block.get("name"))
        arguments = block.get("input")
        # parsed JSON as it is (`cast`, a call, spared on every tool call)
        shown: JSONValue = (
            rec.bounded(arguments, [1 << 62]) if compacted else arguments  # type: ignore[assignment]
        )
        yield self._event(
            "tool_call", agent, tool=name, call_id=call, extra={"input": shown}
        )
        if name not in rec.SPAWN_TOOLS:
            return
        spec = arguments if isinstance(arguments, dict) else {}
        child_id = (
            self.context.by_call.get(call) or self.survey.result_agents.get(call)
            if call
            else None
        )
        if not child_id:
            child_id = self._unlinked(agent, spec, by_task=True) or self._unlinked(
                agent, spec
            )
        child = self.context.children.get(child_id) if child_id else None
        if child_id and child is None and call in self.survey.result_agents:
            # its result came back naming it, and no folder holds its file
            self.context.diagnostics.child_missing(
                "claude", child_id, self.context.not_files.get(child_id)
            )
        agent_type = (child.agent_type if child else None) or rec.string(
            spec.get("subagent_type")
        )
        description = (child.description if child else None) or rec.string(
            spec.get("description")
        )
        if child_id:
            self.context.announced.add(child_id)
        extra: dict[str, JSONValue] = {"child_id": child_id, "agent_type": agent_type}
        if child is not None and child.observer:
            extra["observer"] = True
        if named := rec.string(spec.get("name")):  # an agent-team teammate's name
            extra["agent_name"] = named
        yield self._event(
            "subagent", agent, call_id=call, text=description, extra=extra
        )

    def _unlinked(
        self, agent: str | None, spec: dict[str, object], *, by_task: bool = False
    ) -> str | None:
        """The sub-agent file this spawn started where neither the call's result nor the
        file's meta names the call (a redacted capture, a build whose meta has no
        `toolUseId`, a lead still waiting on it): of the same spawning agent, type and
        description, not yet shown, started at or after the call; the earliest such.

        With `by_task`, the file opens with the call's prompt instead, and where no meta
        file names its spawning agent, any agent may be it: a nested sub-agent whose
        meta is lost has only this link (its spawner's file is not surveyed)."""
        kind = rec.string(spec.get("subagent_type"))
        description = rec.string(spec.get("description"))
        task = rec.string(spec.get("prompt")) if by_task else None
        if by_task and not task:
            return None
        wanted = rec.task_key(task) if task else None
        since = self.time.timestamp() if self.time is not None else None
        announced, started = self.context.announced, self.context.started
        found: tuple[float, str] | None = None
        for agent_id, child in self.context.children.items():
            if (
                child.call_id is not None
                or child.path is None
                or agent_id in announced
                or agent_id in started
                or (child.task != wanted if by_task else child.parent_agent != agent)
                or (by_task and child.parent_agent not in (None, agent))
                or (kind and child.agent_type and kind != child.agent_type)
                or (
                    description
                    and child.description
                    and description != child.description
                )
                or (
                    since is not None
                    and child.first is not None
                    and child.first < since
                )
            ):
                continue
            key = child.first if child.first is not None else float("inf")
            if found is None or key < found[0]:
                found = (key, agent_id)
        return found[1] if found is not None else None

    def _system(
        self, record: dict[str, object], agent: str | None, compacted: bool
    ) -> Iterator[Event]:
        subtype = type_tag(record.get("subtype"))
        if subtype == "turn_duration":
            duration = record.get("durationMs")
            yield from self._turn_end(
                agent, {"duration_ms": duration} if isinstance(duration, int) else {}
            )
        elif subtype == "compact_boundary":
            yield from self._bill(agent)
            meta = record.get("compactMetadata")
            meta = meta if isinstance(meta, dict) else {}
            tokens = meta.get("preTokens")
            extra: dict[str, JSONValue] = {
                "trigger": rec.string(meta.get("trigger")),
                "pre_tokens": tokens if isinstance(tokens, int) else None,
            }
            self.compaction = self._event("compaction", agent, extra=extra)
        elif subtype == "microcompact_boundary":  # old tool outputs cleared, no summary
            meta = record.get("microcompactMetadata")
            meta = meta if isinstance(meta, dict) else {}
            before, saved = meta.get("preTokens"), meta.get("tokensSaved")
            yield self._event(
                "compaction",
                agent,
                extra={
                    "reason": "microcompact",
                    "trigger": rec.string(meta.get("trigger")),
                    "pre_tokens": before if isinstance(before, int) else None,
                    "tokens_saved": saved if isinstance(saved, int) else None,
                },
            )
        elif subtype in ("api_error", "error"):
            attempt, most = record.get("retryAttempt"), record.get("maxRetries")
            # Claude Code writes one line per retry it makes: not the end of the turn
            retrying = final = False
            if isinstance(attempt, int) and isinstance(most, int):
                retrying, final = attempt < most, attempt >= most
            noted: dict[str, JSONValue] = {"retrying": True} if retrying else {}
            if final:  # the last of its retries: no "retrying" grace on the board
                noted["final"] = True
            yield self._event("error", agent, text=rec.api_error(record), extra=noted)
        elif subtype == "api_refusal":
            said = (
                rec.string(record.get("apiRefusalExplanation"))
                or "the API refused the request"
            )
            yield self._event("error", agent, text=f"refusal: {said}")
        elif subtype in ("model_refusal_fallback", "model_fallback"):
            # a refusal, or (2.1.332) an overloaded or retired model, moved the turn on
            old = rec.string(record.get("originalModel"))
            yield from self._fallback(
                agent, old, rec.string(record.get("fallbackModel"))
            )
        elif subtype == "model_consent_fallback":
            # 2.1.332: the model needs usage credits, and the session switched instead
            old = rec.string(record.get("originalModel"))
            yield from self._fallback(
                agent, old, rec.string(record.get("fallbackModel"))
            )
        elif subtype == "subagent_file_changes":  # 2.1.337, at a turn's end
            said, changes = _files_changed(record.get("bashEditDiff"))
            yield self._event("meta", agent, text=said, extra=changes)
        elif subtype == "informational":
            note = record.get("content")
            if isinstance(note, str) and note.strip():
                yield self._event("meta", agent, text=rec.text(note))
        elif subtype not in rec.IGNORED_SYSTEM:
            self.context.diagnostics.unknown_type(f"system/{subtype}", self.version)

    def _attachment(
        self, record: dict[str, object], agent: str | None, compacted: bool
    ) -> Iterator[Event]:
        attachment = record.get("attachment")
        if not isinstance(attachment, dict):
            return
        kind = type_tag(attachment.get("type"))
        if kind == "hook_success" and _stopped(attachment) and agent is not None:
            # the sub-agent's SubagentStop hooks ran and let it stop: it has finished
            # (a trimmed transcript may keep this line and lose the final answer)
            yield from self._turn_end(agent, {"reason": "subagent_stop"})
            return
        if kind in rec.IGNORED_ATTACHMENTS:
            return
        if kind == "teammate_mailbox":  # agent teams: what arrived while it was busy
            mail = attachment.get("messages")
            yield from self._teammates(
                [
                    (
                        rec.string(m.get("from")) or "teammate",
                        rec.flatten(m.get("text")),
                    )
                    for m in (mail if isinstance(mail, list) else [])
                    if isinstance(m, dict) and rec.flatten(m.get("text")).strip()
                ],
                agent,
            )
            return
        if kind == "queued_command":  # a prompt typed while the agent was busy
            said = rec.flatten(attachment.get("prompt"))
            team = rec.teammate_messages(said)
            if team is not None:  # a teammate's message, queued as a prompt is
                yield from self._teammates(team, agent)
                return
            mode = attachment.get("commandMode")
            harness = (
                isinstance(mode, str) and mode != "prompt"
            ) or rec.harness_origin(
                attachment.get("origin")
            )  # a background task's notification, queued like a prompt
            if said.strip() and harness:
                yield self._event("user", agent, text=said, extra={"injected": True})
                self._state(agent).turn_ended = False
                yield from self._task_end(said, agent)
            elif said.strip():
                yield from self._prompted(agent)
                yield self._event("user", agent, text=said, extra={"queued": True})
        elif kind in _HOOK_STOPS:
            hook = rec.string(attachment.get("hookName")) or "a hook"
            reason = next(
                (
                    rec.string(attachment.get(key))
                    for key in ("stderr", "message", "content", "reason")
                    if rec.string(attachment.get(key))
                ),
                None,
            )
            said = f"{hook} {_HOOK_STOPS[kind]}" + (
                f": {rec.text(reason)}" if reason else ""
            )
            yield self._event("error", agent, text=said)
        elif kind == "max_turns_reached":
            turns = attachment.get("maxTurns")
            yield self._event(
                "error",
                agent,
                text=f"stopped: the limit of {turns} turns was reached"
                if isinstance(turns, int)
                else "stopped: the turn limit was reached",
            )
        elif kind == "tool_results_cut":
            # 2.1.332: old tool outputs replaced by a stand-in for the model (after the
            # user was away, or a tool withdrew them), as a microcompaction clears them
            calls, rough = attachment.get("callIds"), attachment.get("roughTokens")
            yield self._event(
                "compaction",
                agent,
                extra={
                    "reason": "tool_results_cut",
                    "trigger": rec.string(attachment.get("cause")),
                    "calls": len(calls) if isinstance(calls, list) else None,
                    "tokens_saved": rough if isinstance(rough, int) and rough else None,
                },
            )
        elif kind == "blocked_prompts_withdrawn":
            said, withdrawn = _withdrawn(attachment.get("prompts"))
            yield self._event("meta", agent, text=said, extra=withdrawn)
        elif kind == "goal_status":
            met = attachment.get("met")
            reason = rec.string(attachment.get("reason"))
            state = "met" if met is True else "not met" if met is False else "checked"
            yield self._event(
                "meta",
                agent,
                text=f"goal {state}" + (f": {rec.text(reason)}" if reason else ""),
                extra={"goal_met": met if isinstance(met, bool) else None},
            )
        elif kind in ("hook_blocking_error", "hook_non_blocking_error"):
            hook = rec.string(attachment.get("hookName")) or "a hook"
            detail = attachment.get("blockingError")
            reason = (
                rec.string(detail.get("blockingError"))
                if isinstance(detail, dict)
                else None
            )
            reason = reason or rec.string(attachment.get("stderr"))
            verb = "blocked" if kind == "hook_blocking_error" else "failed"
            said = f"{hook} {verb}" + (f": {rec.text(reason)}" if reason else "")
            yield self._event("error", agent, text=said)
        else:
            self.context.diagnostics.unknown_type(f"attachment/{kind}", self.version)

    def _mode(
        self, record: dict[str, object], agent: str | None, compacted: bool
    ) -> Iterator[Event]:
        if changed := self._change(agent, "mode", rec.string(record.get("mode"))):
            yield changed

    def _permission_mode(
        self, record: dict[str, object], agent: str | None, compacted: bool
    ) -> Iterator[Event]:
        mode = rec.string(record.get("permissionMode"))
        if changed := self._change(agent, "permission_mode", mode, first=True):
            yield changed

    def _progress(
        self, record: dict[str, object], agent: str | None, compacted: bool
    ) -> Iterator[Event]:
        """A 2.0 progress line: nothing shown (the sub-agent's own file shows its work),
        but a relayed response's odd count is said, as `usage`, which bills it, says it."""
        data = record.get("data")
        relayed = data.get("message") if isinstance(data, dict) else None
        message = relayed.get("message") if isinstance(relayed, dict) else None
        if not isinstance(message, dict) or record.get("isApiErrorMessage") is True:
            return iter(())
        raw = message.get("usage")
        synthetic = message.get("model") == rec.SYNTHETIC  # billed by nobody
        if not synthetic and isinstance(raw, dict) and rec.odd_usage(raw):
            self.context.diagnostics.damage(str(self.path), self.number, ODD_COUNT)
        return iter(())

    def _pr_link(
        self, record: dict[str, object], agent: str | None, compacted: bool
    ) -> Iterator[Event]:
        # Claude Code writes its session state again at each save: one link, many lines
        url = rec.string(record.get("prUrl"))
        if url and (agent, url) not in self.links:
            self.links.add((agent, url))
            yield self._event(
                "meta", agent, text=f"pull request: {url}", extra={"pr": url}
            )

    def _continued_in(
        self, record: dict[str, object], agent: str | None, compacted: bool
    ) -> Iterator[Event]:
        """Sent to the background: the conversation goes on under another session id."""
        moved = rec.string(record.get("continuedInSessionId"))
        if moved:
            yield self._event(
                "meta",
                agent,
                text=f"continued in session {moved} (sent to the background)",
                extra={"continued_in": moved},
            )

    def _derived_from(
        self, record: dict[str, object], agent: str | None, compacted: bool
    ) -> Iterator[Event]:
        """The sessions this one's data came from (2.1.33x: a branch, a resume, a
        compaction's source), each told once: the list is written again at each save."""
        sessions = record.get("sessions")
        for item in sessions if isinstance(sessions, list) else ():
            if not isinstance(item, dict) or item.get("type") != "claude_code_session":
                continue
            origin, via = rec.string(item.get("id")), rec.string(item.get("via"))
            if origin and origin != self.context.session_id:
                if ("derived", origin) in self.links:
                    continue
                self.links.add(("derived", origin))
                yield self._event(
                    "meta",
                    agent,
                    text=f"derived from session {origin}"
                    + (f" ({via})" if via else ""),
                    extra={"derived_from": origin, "via": via},
                )

    def _forked_from(self, forked: object) -> Iterator[Event]:
        """Where a fork's copied lines came from (`--fork-session`, `/branch`: each is
        stamped `forkedFrom`), told once, before the first of them."""
        origin = (
            rec.string(forked.get("sessionId")) if isinstance(forked, dict) else None
        )
        if not origin or origin == self.context.session_id:
            return
        if ("forked", origin) in self.links:
            return
        self.links.add(("forked", origin))
        yield self._event(
            "meta",
            None,
            text=copied_note(origin),
            extra={"forked_from": origin},
        )

    def _ended_by_model(
        self, record: dict[str, object], agent: str | None, compacted: bool
    ) -> Iterator[Event]:
        yield self._event(
            "meta", agent, text="the model ended the conversation",
            extra={"ended_by_model": True},
        )  # fmt: skip

    def _legacy_tool_use(
        self, record: dict[str, object], agent: str | None, compacted: bool
    ) -> Iterator[Event]:
        call = {
            "id": record.get("id") or record.get("uuid"),
            "name": record.get("name"),
            "input": record.get("input"),
        }
        yield from self._tool_call(call, agent, compacted)

    def _legacy_tool_result(
        self, record: dict[str, object], agent: str | None, compacted: bool
    ) -> Iterator[Event]:
        yield self._event(
            "tool_result",
            agent,
            call_id=rec.string(record.get("tool_use_id")),
            text=rec.flatten(record.get("output", record.get("content"))),
            is_error=record.get("is_error") is True,
        )


# Hook outcomes that stopped or failed something, as the attachment names them.
_HOOK_STOPS = {
    "hook_error_during_execution": "failed",
    "hook_stopped_continuation": "stopped the agent",
    "hook_cancelled": "was cancelled",
}

_Handler = Callable[[Stream, dict[str, object], str | None, bool], Iterable[Event]]
_HANDLERS: dict[str, _Handler] = {
    "user": Stream._user,
    "assistant": Stream._assistant,
    "system": Stream._system,
    "attachment": Stream._attachment,
    "mode": Stream._mode,
    "permission-mode": Stream._permission_mode,
    "pr-link": Stream._pr_link,
    "progress": Stream._progress,
    "continued-in": Stream._continued_in,
    "ended-by-model": Stream._ended_by_model,
    "derived-from": Stream._derived_from,
    # an early shape: tool calls and results as records of their own
    "tool_use": Stream._legacy_tool_use,
    "tool_result": Stream._legacy_tool_result,
}


def _virtual(record: dict[str, object]) -> dict[str, JSONValue] | None:
    """What marks an event of an `isVirtual` line (2.1.33x): a tool call a REPL script
    ran, or its result, written as if the model had made it (model `<synthetic>`, no
    tokens): `extra["virtual"]`, and `extra["ran_by"]`, the script's own call, where the
    line names it (`ranByToolUseId`). None for any other line."""
    if record.get("isVirtual") is not True:
        return None
    marks: dict[str, JSONValue] = {"virtual": True}
    if ran_by := rec.string(record.get("ranByToolUseId")):
        marks["ran_by"] = ran_by
    return marks
