"""A live session's status, from its events and whether its CLI still runs: the rules.

No IO and no app knowledge: `Tracker` folds events (any app's, in the one event model) into
what the rules need, and `decide` applies them. The rules, in order:

1. failed — the lead agent's last event is an error (API error, crash), unless the CLI is
   still writing (a retry).
2. waiting_on_subagent — the lead agent has an open tool call (the spawn, or a wait) while
   one of its sub-agents is still being written, or, silent, has not ended while the call
   that spawned it or a wait (`extra["waits"]` on the call: on every sub-agent) is open;
   a spawn that returned ends its sub-agent, unless it only launched it.
   Mid-turn with no open call, a sub-agent announced with no spawning call (its app writes
   the call only once it has run) that has not ended counts the same, while the lead was
   written recently or its CLI may run (silent: its call may run long); so does one launched in the background by an
   app whose lead writes its later calls, a wait on it among them, only once they have run
   (`extra["wait_unwritten"]` on its spawn). An observer (`extra["observer"]` on its
   spawn, `FollowFile.observer`: an agent the app runs beside another to watch it) is never
   waited on, here or under rule 4, as its app does not wait on it.
3. waiting_for_user — the app recorded that it asks the user to approve a call
   (`extra["asks"] == "approval"`, on the call or on a meta event) or to answer a
   question (`"answer"`), and nothing followed; idle once it waited IDLE_AFTER.
   working / waiting_for_user — an open tool call: the tool is running; but when the CLI
   runs, nothing was written since the call, and the CLI started no process since, the
   call is taken to wait for the user's approval (an inference, for apps that record no
   approval request), idle after IDLE_AFTER as a recorded one. A working sub-agent's open
   call, under rule 2, is read the same way. Never in a headless run (`extra["headless"]`
   on the lead's last prompt): it shows no prompt to anyone.
   working / idle — the model took the request to answer later (`extra["deferred"]` on a
   meta event: a background or batch answer the app polls for): working while the CLI
   runs or writes, then idle for up to DEFERRED_FOR, then ended. Never waiting for the user.
4. waiting_for_user — the turn ended (a turn_end, or an answer followed by silence for apps
   that write no turn end); after IDLE_AFTER it is idle, or ended if the CLI is gone.
   An answer whose calls may come later (`extra["calls_later"]` on its turn_end: its app
   writes them once they have run) is working while the CLI runs a process started
   since (the tool's; not a helper: `live_session` tells those apart); with no process
   to ask, a wait marked as a guess (`?`).
   waiting_on_subagent — instead, a headless run's (the lead's last prompt has
   `extra["headless"]`: no one can type, and its CLI runs until its sub-agents are done)
   while a sub-agent it launched in the background works: one written recently, or, while
   the CLI runs, any whose turn has not ended (with no process information, any written in
   the last ENDED_AFTER). With none working and no process information, ended: it has
   no one to wait for.
5. working — mid-turn (a prompt, a tool result, thinking) and written to recently, or the
   CLI still runs (a long answer is written only when it is complete) for up to STALLED_AFTER.
6. idle / ended — mid-turn but silent: idle while the CLI runs, ended once it is gone (or,
   with no process information, after ENDED_AFTER).

An event with `extra["interrupted"]` (a source marks the user's interruption so) ends the turn.
A lead's event with `extra["exited"]` (the app recorded that its process ended) counts as the
CLI gone until anything follows it: a process search may not be possible, or may be wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypeVar

from .model import Event, EventKind

if TYPE_CHECKING:
    from datetime import datetime

    from .views.text import SiblingIds

_When = TypeVar("_When", float, float | None)

# Most urgent first: the order of the board's groups.
STATUSES = (
    "waiting_for_user",
    "failed",
    "waiting_on_subagent",
    "working",
    "idle",
    "ended",
)

QUIET_WORKING = 60.0  # mid-turn and silent this long: working only if the CLI runs
STALLED_AFTER = 10 * 60.0  # mid-turn, CLI running, silent this long: idle
ANSWERED_AFTER = 3.0  # an answer and no turn_end, silent this long: the turn is over
APPROVAL_AFTER = 5.0  # an open call this old, CLI alive and idle: it waits for approval
IDLE_AFTER = 15 * 60.0  # waiting for the user this long: idle
ENDED_AFTER = 30 * 60.0  # no process information and silent this long: ended
WRITING = 10.0  # written this recently: the CLI runs, whatever /proc says
# a deferred answer pending this long is given up: the longest window such a request asks
# a provider to hold it for is a day
DEFERRED_FOR = 24 * 3600.0

# Event kinds that say where a turn stands; usage and meta do not move it.
_PHASES: frozenset[EventKind] = frozenset(
    {
        "user",
        "assistant",
        "thinking",
        "tool_call",
        "tool_result",
        "turn_end",
        "compaction",
        "subagent",
        "error",
    }
)


@dataclass(slots=True)
class Agent:
    """Where one agent (the lead or a sub-agent) stands."""

    id: str | None
    agent_type: str | None = None
    agent_name: str | None = None  # the name the lead gave it, where the app names them
    description: str | None = None
    phase: EventKind | None = None
    said: str | None = None  # the last error's text
    active: float = 0.0  # epoch seconds of its last event or write
    # epoch seconds of its last dated event that moved its turn (`phase`): where its turn
    # ended, when it ended, which a sub-agent's or a setting's later write does not move;
    # 0 where that event is undated
    moved: float = 0.0
    open_calls: dict[str, tuple[str | None, float]] = field(default_factory=dict)
    turn_ended: bool = False
    failed: bool = False  # the turn ended on an error
    interrupted: bool = False
    gave_up: bool = False  # its last error says the app will not try again
    # (what waits, since): an approval request or a question the app recorded
    asking: tuple[str, float] | None = None
    # the sub-agent whose request `asking` is, where the lead's file holds it (its id
    # where the file says it, and its type): named by the one rule on the board
    asked_by: Agent | None = None
    deferred: float | None = None  # since when the model's answer is deferred
    # its turn ended on an answer whose tool calls its app writes only once they have run
    # (`extra["calls_later"]` on the turn_end): a tool may be running
    unsure: bool = False
    # runs beside another agent to watch it (Claude Code's observers): never waited on,
    # as the app itself does not wait on it (nor lists it among the agents at work)
    observer: bool = False


@dataclass(slots=True)
class Tracker:
    """Everything the rules need, folded from a session's events as they arrive."""

    agents: dict[str | None, Agent] = field(default_factory=lambda: {None: Agent(None)})
    spawns: dict[str, str | None] = field(default_factory=dict)  # call -> child id
    waits: set[str] = field(
        default_factory=set
    )  # the lead's calls that wait on sub-agents
    tokens: int = 0
    events: int = 0
    # an event other than a setting came (a prompt, an answer, a meta event that asks or
    # defers): a session holding only its settings (model, effort) has not started
    begun: bool = False
    turn_ends: int = 0  # seen from the lead: this app writes them
    prompted: float = 0.0  # epoch seconds of the lead's last prompt
    partial: bool = False  # history before the first event read is unknown
    recorded: float = 0.0  # epoch seconds of the newest dated event of any agent
    exited: bool = False  # the lead's last event says its app exited
    # sub-agents whose lead may wait on them with a call not written yet: announced with
    # no spawning call, or launched by a lead whose calls are written only once they have
    # run (`wait_unwritten`)
    uncalled: set[str] = field(default_factory=set)
    # the lead's last prompt came from a headless run (no one types; its CLI waits for
    # its background sub-agents and exits when done)
    headless: bool = False
    # the lead's session id: a sub-agent's name says as much of its id as tells the two
    # apart (a Codex thread spawned at once shares its lead's first 8 characters)
    lead_id: str | None = None
    # the ids a sub-agent's name tells its own from (`_name`), with the lead's and how
    # many agents they are of: gathered again only once another agent is known, not at
    # every poll (each name gathered every agent's: 4,000 sub-agents, 12 ms a poll)
    named_apart: tuple[str | None, int, SiblingIds] | None = None

    @property
    def lead(self) -> Agent:
        return self.agents[None]

    def agent(self, agent_id: str | None) -> Agent:
        found = self.agents.get(agent_id)
        if found is None:
            found = self.agents[agent_id] = Agent(agent_id)
        return found

    def link(
        self,
        child_id: str,
        call_id: str | None,
        agent_type: str | None = None,
        description: str | None = None,
        *,
        observer: bool = False,
    ) -> None:
        """A sub-agent the files name (its spawning call, when known)."""
        child = self.agent(child_id)
        child.observer = child.observer or observer
        child.agent_type = child.agent_type or agent_type
        child.description = child.description or description
        if call_id is not None and self.spawns.get(call_id) is None:
            self.spawns[call_id] = child_id

    def touch(self, agent_id: str | None, when: float) -> None:
        """The agent's file was written at `when` (epoch seconds), events or not."""
        agent = self.agent(agent_id)
        agent.active = max(agent.active, when)

    def add(self, event: Event, arrived: float) -> None:
        self.events += 1
        if event.kind != "meta" or any(
            event.extra.get(key) is not None for key in ("asks", "deferred")
        ):
            self.begun = True
        self.exited = event.agent_id is None and event.extra.get("exited") is True
        agent = self.agent(event.agent_id)
        when = event.time.timestamp() if event.time is not None else arrived
        if (
            event.time is not None
        ):  # an undated event says nothing of when it was written
            agent.active = max(agent.active, min(when, arrived))
            self.recorded = max(self.recorded, min(when, arrived))
        kind = event.kind
        if kind == "usage" and event.usage is not None:
            self.tokens += event.usage.plausible().total  # a broken count adds 0
        if kind == "turn_end" and event.agent_id is None:
            self.turn_ends += 1
        if kind == "user" and event.agent_id is None:
            self.prompted = when
        if (asks := event.extra.get("asks")) in ("approval", "answer"):
            what = (
                f"{event.tool or 'a tool'} waits for approval"
                if asks == "approval"
                else "a question waits for your answer"
            )
            agent.asking, agent.asked_by = (what, when), _asker(event)
            if kind not in _PHASES:
                return
        elif kind not in ("meta", "subagent") or event.extra.get("answered") is True:
            agent.asking = agent.asked_by = None  # answered, or the agent went on
        if event.extra.get("deferred") is True and kind not in _PHASES:
            # each later poll that finds no answer says it again: pending since the first
            if agent.deferred is None:
                agent.deferred = when
            return
        if kind not in _PHASES or (kind == "error" and event.extra.get("retrying")):
            return
        agent.deferred = None  # the answer came, or the turn moved on without it
        if kind != "subagent":  # a sub-agent's file found is dated by its own records
            agent.moved = min(when, arrived) if event.time is not None else 0.0
        agent.unsure = kind == "turn_end" and event.extra.get("calls_later") is True
        if event.extra.get("interrupted") is True:
            agent.phase = "turn_end"
            agent.unsure = False
            agent.turn_ended = agent.interrupted = True
            agent.failed = False
            agent.open_calls.clear()
            return
        previous, agent.phase = agent.phase, kind
        agent.interrupted = False
        if kind == "error":
            agent.said = event.text
            agent.gave_up = event.extra.get("final") is True
        elif kind == "turn_end":
            agent.failed = previous == "error"  # the turn ended on its error
        else:
            agent.said, agent.failed = None, False
        if kind == "user":
            agent.turn_ended = False
            if event.agent_id is None:
                self.headless = event.extra.get("headless") is True
        elif kind == "turn_end":
            agent.turn_ended = True
            agent.open_calls.clear()  # a call left open by an interrupted turn is over
        elif kind == "tool_call" and event.call_id:
            agent.open_calls[event.call_id] = (event.tool, when)
            agent.turn_ended = False
            if event.agent_id is None and event.extra.get("waits") is True:
                self.waits.add(event.call_id)
        elif kind == "tool_result" and event.call_id:
            agent.open_calls.pop(event.call_id, None)
            self.waits.discard(event.call_id)
            child_id = self.spawns.get(event.call_id)
            if child_id is not None and event.extra.get("launched") is not True:
                # the spawn returned: its sub-agent is done, whether or not its own
                # records end its turn (a background one's spawn returns at once)
                self.agent(child_id).turn_ended = True
        elif kind == "subagent":
            named = event.extra.get("child_id")
            child_id = str(named) if named is not None else None
            if event.call_id:
                self.spawns[event.call_id] = child_id or self.spawns.get(event.call_id)
            if child_id is not None and (
                not event.call_id or event.extra.get("wait_unwritten") is True
            ):
                self.uncalled.add(child_id)
            elif child_id is not None:
                self.uncalled.discard(child_id)
            if child_id is not None:
                child = self.agent(child_id)
                agent_type = event.extra.get("agent_type")
                child.agent_type = child.agent_type or (
                    str(agent_type) if agent_type else None
                )
                agent_name = event.extra.get("agent_name")
                child.agent_name = child.agent_name or (
                    str(agent_name) if agent_name else None
                )
                child.description = child.description or event.text
                child.observer = child.observer or event.extra.get("observer") is True
                child.active = max(child.active, when)


@dataclass(frozen=True, slots=True)
class Status:
    status: str  # one of STATUSES
    reason: str  # as the board says it, its age in it ("exited after its turn, 3m ago")
    # a call waits on the user (an approval, a question): the agent cannot go on without
    # them, where a turn that ended only waits for more work; such come first in a group
    blocked: bool = field(default=False, compare=False)
    # the reason without its age, and when (epoch seconds) that age counts from: what
    # JSON gives, as an age goes stale once saved; None for a reason with no age
    ageless: str | None = field(default=None, compare=False)
    since: float | None = field(default=None, compare=False)

    @property
    def plain(self) -> str:
        """The reason without its age ("exited after its turn")."""
        return self.reason if self.ageless is None else self.ageless


def _aged(
    status: str,
    said: str,
    age: str,
    since: float,
    tail: str = "",
    blocked: bool = False,
) -> Status:
    """A status whose reason holds an age: `said + age + tail` on the board, `said + tail`
    and `since` in JSON; `since` is None where nothing was dated (an age of 'ever')."""
    when = since if since > 0 else None
    return Status(status, said + age + tail, blocked, said + tail, when)


def last_recorded(recorded: float, modified: Callable[[], _When]) -> float | _When:
    """When a session was last active, as `watch` and `tree` both judge it (epoch
    seconds): `recorded`, its newest dated record's time (0 where none is dated), else
    `modified`, its files' modification time, asked only then: a home copied with `cp -r`
    has every file written just now, a session of a year ago among them."""
    return recorded or modified()


def listed_last_write(created: datetime | None, updated: datetime | None) -> bool:
    """Whether a listing's `updated` says when the session last wrote, where no record
    of it is dated: only when it is later than its start (a nanocoder chat's); one no
    later (Amp's thread, its start alone known) or with no start beside it (the 2025
    Codex rollout's header) may be the session's start, not its last write."""
    return created is not None and updated is not None and updated > created


# (epoch seconds) -> whether the CLI started a process since then; None when unknown
SpawnedSince = Callable[[float], bool | None]


def decide(
    tracker: Tracker,
    now: float,
    last_write: float,
    alive: bool | None,
    spawned_since: SpawnedSince | None = None,
) -> Status:
    """The session's status at `now` (epoch seconds); see the module docstring."""
    lead = tracker.lead
    written = max(last_write, lead.active)
    quiet = max(0.0, now - written)
    if alive is False and quiet < WRITING:
        alive = None  # it is being written: the process search missed it
    if tracker.exited:
        alive = False  # the app wrote that it exited: no process search knows better
    # nothing but settings yet (pi writes its model first); a history read from its end
    # holding only settings may still be mid-turn
    if (
        lead.phase is None
        and not tracker.begun
        and not (tracker.partial and tracker.events)
    ):
        if quiet < QUIET_WORKING and alive is not False:
            return Status("working", "starting")
        # with no process to ask, a CLI that wrote its file as it opened (Gemini CLI's
        # TUI) may wait for its first prompt as long as one waits after a silent turn
        if alive or (alive is None and quiet < ENDED_AFTER):
            return Status("idle", "nothing written yet")
        return _aged("ended", "nothing written", f" for {ago(quiet)}", written)
    if lead.phase == "error" or (lead.turn_ended and lead.failed):
        if (
            lead.phase == "error"
            and not lead.gave_up
            and alive is not False
            and quiet < WRITING
        ):
            return Status("working", "retrying after an error")
        return Status("failed", "error: " + _first_line(lead.said or "unknown"))
    if (asked := _asking(tracker)) is not None and alive is not False:
        who, (what, asked_at) = asked
        waits = f"{who}: {what}" if who else what
        age = f" ({ago(now - asked_at)})"
        return _aged(_waiting(now - asked_at), waits, age, asked_at, blocked=True)
    # with no process information, a silence this long ends a spawn whose sub-agent has no
    # file of its own as it ends any open call
    stale = alive is None and quiet >= ENDED_AFTER
    working = _working_children(tracker, now, False if stale else alive)
    # what the lead waits on: the working sub-agents, while it has a call open (the spawn,
    # or a wait); with none open, mid-turn, one whose spawn no call records yet (an app
    # that writes a response's calls only once they have run)
    waited = working
    if not lead.open_calls:
        live = not lead.turn_ended and (
            quiet < QUIET_WORKING or (alive is not False and not stale)
        )
        waited = [c for c in working if c.id in tracker.uncalled and live]
    if waited:
        # a sub-agent's call waits for approval as the lead's does (its prompt shows in
        # the lead's window)
        for child in waited:
            asks = _waits_for_approval(tracker, child, now, quiet, alive, spawned_since)
            if asks is not None:
                return _asks(asks, now, f"{_name(tracker, child)}: ")
        if len(waited) == 1:
            child = waited[0]
            started = _started(tracker, child)
            name = _name(tracker, child)
            if not name:
                return Status("waiting_on_subagent", "1 sub-agent working")
            said = f"sub-agent {name} working"
            if not started:
                return Status("waiting_on_subagent", said)
            age = f" {ago(now - started)}"
            return _aged("waiting_on_subagent", said, age, started)
        return Status("waiting_on_subagent", f"{len(waited)} sub-agents working")
    if lead.deferred is not None and not lead.open_calls:
        deferred, pending = lead.deferred, ago(now - lead.deferred)
        if quiet < QUIET_WORKING or (alive and quiet < DEFERRED_FOR):
            said = "waiting for a deferred answer"
            return _aged("working", said, f" ({pending})", deferred)
        if quiet < DEFERRED_FOR:
            said = "a deferred answer pending"
            return _aged("idle", said, f" for {pending}", deferred)
        return _aged("ended", "a deferred answer never came", f" ({pending})", deferred)
    if lead.open_calls:
        tool, started = max(lead.open_calls.values(), key=lambda opened: opened[1])
        name = tool or "tool"
        running = max(0.0, now - started)
        if alive is False and quiet >= QUIET_WORKING:
            return Status("ended", f"stopped during {name} (process gone)")
        asks = _waits_for_approval(tracker, lead, now, quiet, alive, spawned_since)
        if asks is not None:
            return _asks(asks, now)
        if alive is None and quiet >= ENDED_AFTER:
            return _aged("ended", "nothing written", f" for {ago(quiet)}", written)
        return _aged("working", f"tool {name} running", f" {ago(running)}", started)
    # an answer then silence ends a turn only in a session whose app was not seen to write
    # turn ends: one that does may write a text block and, seconds later, a tool call
    answered = (
        lead.phase == "assistant" and quiet >= ANSWERED_AFTER and not tracker.turn_ends
    )
    if lead.turn_ended or lead.phase == "turn_end" or answered:
        # its age counts from the lead's record that ended the turn: a sub-agent that
        # writes on (in the background) moves `written`, not when the turn ended
        ended_at = lead.moved or written
        since_end = max(0.0, now - ended_at)
        if tracker.headless and alive is not False:
            # no one can answer a headless run: it waits for its background sub-agents
            # (all whose turn has not ended, while its CLI runs: a long tool writes
            # nothing; with no process information, those written in ENDED_AFTER)
            busy = working + [
                c
                for c in _unfinished(tracker, now)
                if c not in working and (alive or now - c.active < ENDED_AFTER)
            ]
            if busy:
                if len(busy) > 1:
                    doing = f"{len(busy)} sub-agents working"
                else:
                    name = _name(tracker, busy[0])
                    doing = (
                        f"sub-agent {name} working" if name else "1 sub-agent working"
                    )
                said, age = f"{doing} (turn ended", f" {past(since_end)}"
                return _aged("waiting_on_subagent", said, age, ended_at, ", headless)")
            if alive is None:
                # no one can type into it, and nothing is left for it to wait on: with no
                # process to ask, its turn's end is the run's
                said = "headless run finished"
                return _aged("ended", said, f", {past(quiet)}", written)
        many = "sub-agents" if len(working) > 1 else "sub-agent"
        tail = f" ({len(working)} {many} working)" if working else ""
        ended = "interrupted" if lead.interrupted else "turn ended"
        if alive is False:
            said = "exited after its turn"
            return _aged("ended", said, f", {past(quiet)}", written)
        unsure = lead.unsure and lead.turn_ended
        if unsure and alive and spawned_since is not None:
            # the answer may come before its calls, written once they have run: a process
            # the CLI started since (the tool's shell) says one runs
            started = spawned_since(written - 1.0)
            if started:
                age, tail = f" {ago(quiet)}", " (not written yet)"
                return _aged("working", "a tool running", age, written, tail)
            unsure = started is None
        if quiet < IDLE_AFTER:
            # with no process to ask, an answer that may still be followed by its calls
            # is most often the turn's last: said so, and marked as a guess
            mark = "?" if unsure else ""
            age = f" {past(since_end)}"
            return _aged("waiting_for_user", ended, age, ended_at, mark + tail)
        if alive:
            age = f" for {ago(since_end)}"
            return _aged("idle", "waiting for you", age, ended_at, tail)
        return _aged("ended", "last turn ended", f" {past(since_end)}", ended_at)
    if quiet < QUIET_WORKING or (alive and quiet < STALLED_AFTER):
        doing = {
            "thinking": "thinking",
            "compaction": "compacting the context",
            "assistant": "answering",
        }.get(lead.phase or "", "model responding")
        if quiet >= QUIET_WORKING:
            said = f"{doing}, nothing written"
            return _aged("working", said, f" for {ago(quiet)}", written)
        return Status("working", doing)
    if alive:
        return _aged("idle", "nothing written", f" for {ago(quiet)}", written)
    if alive is False:
        age, tail = f" {past(quiet)}", " (process gone)"
        return _aged("ended", "stopped mid-turn", age, written, tail)
    if quiet < ENDED_AFTER:
        return _aged("idle", "nothing written", f" for {ago(quiet)}", written)
    return _aged("ended", "nothing written", f" for {ago(quiet)}", written)


def _asking(tracker: Tracker) -> tuple[str | None, tuple[str, float]] | None:
    """(which sub-agent, or None for the lead; what waits, since) of an approval or an
    answer an agent asked the user for and did not get yet: the lead's first."""
    for agent_id, agent in tracker.agents.items():
        if agent.asking is not None and agent.asked_by is not None:
            return _asker_name(tracker, agent.asked_by), agent.asking
        if agent.asking is not None:
            name = None if agent_id is None else _name(tracker, agent)
            return name, agent.asking
    return None


def _asker(event: Event) -> Agent | None:
    """The sub-agent whose request `event` records in its lead's file, as far as it
    says: its id (Kimi CLI's `agent_id`) and its type; None for the agent's own."""
    asker_id, kind = event.extra.get("asker_id"), event.extra.get("agent_type")
    if asker_id is None and kind is None:
        return None
    return Agent(
        str(asker_id) if asker_id is not None else None,
        agent_type=str(kind) if kind is not None else None,
    )


def _asker_name(tracker: Tracker, asker: Agent) -> str:
    """What the board calls the sub-agent that asked: by the one rule (`_name`) where
    its id is known, its type the request says where the files say none; its type
    alone where the request carries no id."""
    from .views.text import SPAWN_NAME_COLUMNS, one_line

    known = tracker.agents.get(asker.id) if asker.id is not None else None
    if known is not None:
        asker = replace(known, agent_type=known.agent_type or asker.agent_type)
    return _name(tracker, asker) or one_line(asker.agent_type or "", SPAWN_NAME_COLUMNS)


def _working_children(tracker: Tracker, now: float, alive: bool | None) -> list[Agent]:
    """Sub-agents still being written: their turn has not ended, and they were written to
    recently (or the call that spawned them is still open and the CLI runs, or nothing
    says it does not)."""
    if len(tracker.agents) == 1 and not tracker.spawns:
        return []
    linked = {child for child in tracker.spawns.values() if child is not None}
    open_calls = tracker.lead.open_calls  # once, not once a spawn: thousands of them
    waited = {
        child
        for call, child in tracker.spawns.items()
        if child is not None and call in open_calls
    }
    if any(call in open_calls for call in tracker.waits):
        # a wait open: on every sub-agent not done
        waited |= {child for child in tracker.agents if child is not None}
    # one whose spawn (or wait) is not written yet: its lead writes it once it has run
    waited |= tracker.uncalled
    found: list[Agent] = []
    unlinked = 0
    for agent_id, agent in tracker.agents.items():
        if agent_id is None or agent.turn_ended or agent.observer:
            continue
        if agent.phase == "error" and now - agent.active >= WRITING:
            continue
        # one whose spawn is still open works while its CLI may run: a long tool writes
        # nothing (`decide` passes alive=False once the session is stale)
        if now - agent.active < QUIET_WORKING or (
            alive is not False and agent_id in waited
        ):
            found.append(agent)
            unlinked += agent_id not in linked
    # open spawns whose child we cannot see (no sub-agent files, or not linked yet) count
    # too, unless an unlinked working child is probably theirs
    blind = sum(
        1
        for call, child in tracker.spawns.items()
        if child is None and call in open_calls and alive is not False
    )
    found.extend(Agent(None) for _ in range(blind - unlinked))
    return found


def _unfinished(tracker: Tracker, now: float) -> list[Agent]:
    """Sub-agents whose turn has not ended, however long since they were written (a
    failed one only while its error is fresh)."""
    return [
        agent
        for agent_id, agent in tracker.agents.items()
        if agent_id is not None
        and not agent.turn_ended
        and not agent.observer
        and not (agent.phase == "error" and now - agent.active >= WRITING)
    ]


def _waits_for_approval(
    tracker: Tracker,
    agent: Agent,
    now: float,
    quiet: float,
    alive: bool | None,
    spawned_since: SpawnedSince | None,
) -> tuple[str, float] | None:
    """('Bash', since when) when the agent's newest
    open call is taken to wait for the user: the CLI runs, nothing was written since the
    call, and the CLI started no process since (an inference, for apps that record no
    approval request)."""
    if not (agent.open_calls and alive and quiet >= APPROVAL_AFTER):
        return None
    if tracker.headless:
        return None  # a headless run shows no prompt: it denies, or a program decides
    if spawned_since is None:
        return None
    call, (tool, started) = max(agent.open_calls.items(), key=lambda i: i[1][1])
    running = max(0.0, now - started)
    if call in tracker.spawns or min(running, now - agent.active) < APPROVAL_AFTER:
        return None  # a spawn waits for its sub-agent, not for the user
    if spawned_since(started - 1.0) is not False:
        return None
    return tool or "tool", started


def _asks(asks: tuple[str, float], now: float, who: str = "") -> Status:
    """'Bash waits for approval (12s)?' of `_waits_for_approval`'s (tool, since), the
    asking sub-agent's name first where `who` says it; idle once it waited IDLE_AFTER."""
    tool, started = asks
    running = max(0.0, now - started)
    said, age = f"{who}{tool} waits for approval", f" ({ago(running)})"
    return _aged(_waiting(running), said, age, started, "?", blocked=True)


def _waiting(seconds: float) -> str:
    """What a request of the user's answer `seconds` old is: idle once unanswered for
    IDLE_AFTER, as a turn that ended is."""
    return "waiting_for_user" if seconds < IDLE_AFTER else "idle"


def _name(tracker: Tracker, child: Agent) -> str:
    """What the board calls a sub-agent, by the rule every command names one by
    (`agent_name`): its type, else the name its lead gave it, and the start of its id
    that `show`, `tree` and `resume` take; as much of the id as tells it from its lead's
    and every sibling's the board knows of (it sees them all at once, where `show`
    names each as it comes); then the name its lead gave it where its type is another
    (`subagent 0199a3b2 (greeter)`: Cline gives all one type, `tree` says both). Empty
    for one whose id no file says yet."""
    from .views.text import (
        KIND_COLUMNS,
        SPAWN_NAME_COLUMNS,
        SiblingIds,
        agent_name,
        one_line,
    )

    if child.id is None:
        return ""
    kept = tracker.named_apart
    if kept is None or kept[:2] != (tracker.lead_id, len(tracker.agents)):
        # agents are only ever added: as many as before are the same ones
        ids = (tracker.lead_id, *tracker.agents)
        siblings = SiblingIds(other for other in ids if other is not None)
        tracker.named_apart = kept = (tracker.lead_id, len(tracker.agents), siblings)
    named = child.agent_type or child.agent_name
    kind = one_line(named, SPAWN_NAME_COLUMNS) if named else None  # as `spawn_name`
    name = agent_name(child.id, kind, kept[2].told(child.id, kind))
    given = one_line(child.agent_name, KIND_COLUMNS)
    if given and given not in name:  # a type every sub-agent shares hides it (Cline's)
        return f"{name} ({given})"
    return name


def _started(tracker: Tracker, child: Agent) -> float | None:
    for call, child_id in tracker.spawns.items():
        if child_id == child.id and child.id is not None:
            opened = tracker.lead.open_calls.get(call)
            if opened is not None:
                return opened[1]
    return None


def _first_line(text: str) -> str:
    stripped = text.strip()
    return stripped.splitlines()[0][:200] if stripped else "unknown"


def past(seconds: float) -> str:
    """'42s ago', or 'long ago' where `ago` says 'ever' ('exited after its turn, long
    ago', never 'ever ago')."""
    said = ago(seconds)
    return "long ago" if said == "ever" else f"{said} ago"


def ago(seconds: float) -> str:
    """'42s', '3m', '2h', '4d': a duration, as `list` writes an age (`views.text`)."""
    from .views.text import elapsed

    if seconds > 3650 * 86400:
        return "ever"  # nothing dated was read
    return elapsed(seconds)
