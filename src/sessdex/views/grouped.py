"""A transcript regrouped by agent for reading: each sub-agent's events right after its spawn.

The reader merges agents by time; showing them grouped means holding events back, from
the first sub-agent's spawn to the end of the transcript (a session without sub-agents
streams through). Up to HELD_IN_MEMORY (what they cost as live objects) they are held
as they are; past it, the rest go to a spool file in sessdex's cache folder (each agent
keeps only their places), so a 2 GB transcript costs disk for a moment, not memory. A spooled
event is pickled as plain values: a frozen dataclass (Event, Usage) pickles field by field
through `__getstate__`/`__setstate__`, and an aware datetime through three reduces (itself,
its zone, the zone's offset); together several times the cost of the values.
"""

from __future__ import annotations

import contextlib
import itertools
import pickle
import tempfile
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from operator import attrgetter
from sys import getsizeof
from typing import IO, Any

from ..model import Event, Usage

# past this much (as live objects), held events go to disk: a grouped export then peaks
# near a time-ordered one, and a short session never touches the disk
HELD_IN_MEMORY = 4 * 1024 * 1024

_NAMES = tuple(f.name for f in fields(Event))
# an event's values in the order of Event's fields, as Event(*values) takes them back
_VALUES = attrgetter(*_NAMES)
_TIME, _USAGE = _NAMES.index("time"), _NAMES.index("usage")
_USAGE_VALUES = attrgetter(*(f.name for f in fields(Usage)))
# an event with a time and a usage (its other fields' values are counted apart, or shared)
_EVENT_SIZE = (
    getsizeof(Event("", 0, "usage"))
    + getsizeof(datetime(2000, 1, 1, tzinfo=UTC))
    + getsizeof(Usage(0, 0))
)


@dataclass(slots=True)
class _Held:
    """One agent's events: the first ones as they are, the later ones' places in the spool."""

    events: list[Event] = field(default_factory=list)
    starts: array[int] = field(default_factory=lambda: array("q"))
    sizes: array[int] = field(default_factory=lambda: array("q"))

    def __len__(self) -> int:
        return len(self.events) + len(self.starts)

    def get(self, at: int, spool: IO[bytes] | None) -> Event:
        if at < len(self.events):
            return self.events[at]
        at -= len(self.events)
        assert spool is not None
        spool.seek(self.starts[at])
        return _unpacked(pickle.loads(spool.read(self.sizes[at])))  # our own bytes


def grouped_by_agent(events: Iterable[Event]) -> Iterator[Event]:
    """Lead events in order, each sub-agent's events right after its spawn (nested),
    then the result its spawner got back from that call: spawn, the sub-agent's work,
    what came of it (parallel spawns' results, held back until all had worked, each
    follows its own). A result that only says the agent was sent to the background
    stays where it was. Agents no spawn names follow, in the order they first spoke."""
    events = iter(events)
    first = None
    for event in events:  # the lead's events before any sub-agent: nothing to regroup
        if event.agent_id is not None or event.kind == "subagent":
            first = event
            break
        yield event
    if first is None:
        return
    held: dict[str | None, _Held] = {}
    spawns: set[tuple[str | None, str]] = set()  # (spawner, call) of each spawn
    answers: dict[tuple[str | None, str], int] = {}  # -> its result's place
    weight = 0
    spool: IO[bytes] | None = None
    end = 0  # the spool's size: where the next event goes
    with contextlib.ExitStack() as closing:
        for event in itertools.chain([first], events):
            agent = held.get(event.agent_id)
            if agent is None:
                agent = held[event.agent_id] = _Held()
            call = (event.agent_id, event.call_id or "")
            if event.kind == "subagent" and event.call_id:
                spawns.add(call)
            elif (
                event.kind == "tool_result"
                and call in spawns
                and call not in answers
                and event.extra.get("launched") is not True
            ):
                answers[call] = len(agent)
            if spool is None and weight <= HELD_IN_MEMORY:
                weight += _weight(event)
                agent.events.append(event)
                continue
            if spool is None:
                from ..paths import cache_dir

                spool = closing.enter_context(
                    tempfile.TemporaryFile(dir=cache_dir(), prefix="grouped-")
                )
            data = pickle.dumps(_packed(event), protocol=pickle.HIGHEST_PROTOCOL)
            agent.starts.append(end)
            agent.sizes.append(len(data))
            end += spool.write(data)
        yield from _depth_first(held, spool, answers)


def _packed(event: Event) -> list[object]:
    """The event's values, its time (UTC or naive) and usage as plain tuples."""
    values: list[object] = list(_VALUES(event))
    time, usage = event.time, event.usage
    if type(time) is datetime and (time.tzinfo is UTC or time.tzinfo is None):
        values[_TIME] = (time.year, time.month, time.day, time.hour, time.minute,
                         time.second, time.microsecond, time.fold, time.tzinfo is UTC)  # fmt: skip
    if type(usage) is Usage:
        values[_USAGE] = _USAGE_VALUES(usage)
    return values


def _unpacked(values: list[Any]) -> Event:
    time, usage = values[_TIME], values[_USAGE]
    if type(time) is tuple:
        year, month, day, hour, minute, second, micro, fold, utc = time
        zone = UTC if utc else None
        values[_TIME] = datetime(
            year, month, day, hour, minute, second, micro, zone, fold=fold
        )
    if type(usage) is tuple:
        values[_USAGE] = Usage(*usage)
    return Event(*values)


def _depth_first(
    held: dict[str | None, _Held],
    spool: IO[bytes] | None,
    answers: dict[tuple[str | None, str], int],
) -> Iterator[Event]:
    """Without recursion: a chain of thousands of nested spawns is data, not a bug.
    A spawn's result (its place in `answers`) is moved to just after the sub-agent's
    block, and left out where it stood."""
    none = _Held()
    seen: set[str | None] = set()
    moved: set[tuple[str | None, int]] = set()
    for root in [None, *held]:
        if root in seen:
            continue
        seen.add(root)
        # (agent, place, alone): `alone` yields that one event (a moved result)
        stack: list[tuple[str | None, int, bool]] = [(root, 0, False)]
        while stack:
            agent, at, alone = stack.pop()
            events = held.get(agent, none)
            if at >= len(events):
                continue
            if alone:
                yield events.get(at, spool)
                continue
            if (agent, at) in moved:
                stack.append((agent, at + 1, False))
                continue
            event = events.get(at, spool)
            yield event
            child = event.extra.get("child_id") if event.kind == "subagent" else None
            if child is not None and str(child) not in seen:
                # the usage of the response that made the spawn is the spawner's, not
                # an answer to it: it stays with the spawn, before the sub-agent's block
                while at + 1 < len(events):
                    following = events.get(at + 1, spool)
                    if following.kind != "usage":
                        break
                    yield following
                    at += 1
                seen.add(str(child))
                stack.append((agent, at + 1, False))
                answer = answers.get((agent, event.call_id or ""))
                if answer is not None and answer > at and (agent, answer) not in moved:
                    moved.add((agent, answer))
                    stack.append((agent, answer, True))
                stack.append((str(child), 0, False))
            else:
                stack.append((agent, at + 1, False))


def _weight(event: Event) -> int:
    """What holding the event costs, near enough: the event, its text, and its extra's
    values however nested (a tool result's output is often there again, whole). Keys
    and short names are mostly shared between events, and left out."""
    size = _EVENT_SIZE + (getsizeof(event.text) if event.text is not None else 0)
    if event.call_id is not None:
        size += getsizeof(event.call_id)
    values: list[object] = [event.extra]
    while values:
        value = values.pop()
        size += getsizeof(value)
        if type(value) is dict:
            values.extend(value.values())
        elif type(value) is list or type(value) is tuple:
            values.extend(value)
    return size
