"""Reading one Claude Code session: a survey of the main file, its sub-agents, a merge by time.

The survey is a first pass over the main file that keeps only ids (the uuid graph, spawn
calls, side-chain roots), so branches and links are known before any event is emitted.
Child files are opened lazily, when the merge reaches their spawn.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Iterator
from pathlib import Path

from .. import files
from ..diagnostics import Diagnostics
from ..model import Event
from . import _claude_records as rec
from ._claude_stream import Child, Context, Stream, Survey


def read(
    path: Path, session_id: str, diagnostics: Diagnostics, *, full: bool, offset: int
) -> Iterator[Event]:
    """The events of the session whose main transcript is `path`, numbered from 0."""
    context = Context(session_id, diagnostics, full)
    if (
        offset > 0
    ):  # `show --tail`: the main file from the next whole line, nothing else
        stream = Stream(context, path, None, offset=_next_line(path, offset))
        for seq, event in enumerate(stream.events()):
            yield _numbered(event, seq)
        return
    survey = _survey(path)
    _find_children(context, path, session_id, survey)
    yield from _merge(context, Stream(context, path, None, survey=survey))


def _survey(path: Path) -> Survey:
    """Pass one: the uuid graph (for abandoned branches) and who spawned which side chain.

    Most lines are placed in the graph from their bytes alone; a line is parsed only when
    it may be a typed prompt, a spawn, a spawn's result, a side chain's first line or a
    compaction boundary, or when its ids are ambiguous.
    """
    survey = Survey()
    graph = _Graph()
    side_prompts: dict[int, deque[str]] = {}
    task_prompts: list[tuple[str, int]] = []
    for index, line in enumerate(rec.raw_lines(path)):
        data = line.data
        if b'"uuid"' not in data:
            continue
        ids = _ids(data)
        if ids is not None and not _telling(data):
            uuid, up, sidechain = ids
            if not sidechain:
                graph.place(uuid, up, index, False, None)
                continue
            if up in survey.side_root:
                survey.side_root[uuid] = survey.side_root[up]
                continue
        record = rec.load(data, line.complete, line.number, None, "")
        found = rec.string(record.get("uuid")) if record else None
        if record is None or found is None:
            continue
        uuid, kind = found, record.get("type")
        up = rec.string(record.get("parentUuid"))
        if record.get("isSidechain") is True:  # 1.0: a sub-agent's lines inline
            root = survey.side_root.get(up, uuid) if up else uuid
            survey.side_root[uuid] = root
            if root == uuid:
                survey.root_agent[uuid] = rec.string(record.get("agentId")) or uuid
                task = rec.message_text(record) if kind == "user" else None
                if task:
                    side_prompts.setdefault(hash(task), deque()).append(uuid)
            continue
        # a compaction boundary starts a chain that logically continues the old one
        up = up or rec.string(record.get("logicalParentUuid"))
        typed = kind == "user" and rec.prompt(record) != (None, None)
        stamp = rec.string(record.get("timestamp"))
        if not graph.place(uuid, up, index, typed, stamp):
            continue
        for block in rec.blocks(record):
            call, task = rec.spawn(block)
            if call:
                graph.spawns_at.setdefault(uuid, []).append(call)
                task_prompts.append((call, hash(task)))
        outcome = record.get("toolUseResult")
        if kind == "user" and isinstance(outcome, dict):
            agent = rec.string(outcome.get("agentId"))
            for block in rec.blocks(record) if agent else ():
                call = rec.string(block.get("tool_use_id"))
                if call and agent:
                    survey.result_agents[call] = agent
    for call, task_hash in task_prompts:  # 1.0 side chains open with the Task's prompt
        waiting = side_prompts.get(task_hash)
        if waiting:
            survey.inline_children[call] = survey.root_agent[waiting.popleft()]
    _find_abandoned(survey, graph)
    return survey


class _Graph:
    """The main chain's uuid graph: parent, place in the file, typed prompt or not."""

    def __init__(self) -> None:
        self.parent: dict[str, str | None] = {}
        self.position: dict[str, tuple[int, bool, str | None]] = {}
        self.spawns_at: dict[str, list[str]] = {}
        self.last: str | None = None

    def place(
        self, uuid: str, up: str | None, index: int, typed: bool, stamp: str | None
    ) -> bool:
        if uuid in self.parent:
            return False  # a replayed line: the first copy holds its place
        self.parent[uuid] = up
        self.position[uuid] = (index, typed, stamp)
        self.last = uuid
        return True


def _ids(data: bytes) -> tuple[str, str | None, bool] | None:
    """(uuid, parent uuid, side chain) read from the bytes, or None if ambiguous.

    Inside a JSON string every quote is escaped, so `"uuid":"` can only be a key. Claude
    Code writes compact JSON; any other spacing is simply parsed.
    """
    if data.count(b'"uuid":"') != 1 or data.count(b'"parentUuid":') != 1:
        return None
    if data.count(b'"isSidechain":') > 1:
        return None
    uuid = _value(data, b'"uuid":"')
    if not uuid:
        return None
    up = None if b'"parentUuid":null' in data else _value(data, b'"parentUuid":"')
    return uuid, up, b'"isSidechain":true' in data


def _value(data: bytes, key: bytes) -> str | None:
    start = data.find(key)
    if start < 0:
        return None
    start += len(key)
    end = data.find(b'"', start)
    return data[start:end].decode(errors="replace") if end > start else None


def _telling(data: bytes) -> bool:
    """Whether a line may matter beyond its ids (see `_survey`)."""
    return (
        (b'"role":"user"' in data and b'"tool_result"' not in data)
        or b'"logicalParentUuid"' in data
        or b'"agentId"' in data
        or b'"name":"Task"' in data
        or b'"name":"Agent"' in data
    )


def _find_abandoned(survey: Survey, graph: _Graph) -> None:
    """Mark the subtrees a rewind left behind.

    The active chain runs from the last line back through its parents. A node off that
    chain is the start of an abandoned branch only if it is a typed prompt whose parent is
    on the chain, and the chain's own child of that parent is a later typed prompt (the
    rewind's replacement). Other multi-child shapes (parallel tool results, hooks,
    progress lines, retries) are how Claude Code records one conversation: left alone.
    """
    parent, position, spawns_at = graph.parent, graph.position, graph.spawns_at
    spine: set[str] = set()
    spine_child: dict[str | None, str] = {}
    node = graph.last
    while node is not None and node in parent and node not in spine:
        spine.add(node)
        up = parent[node]
        spine_child[up if up in parent else None] = node
        node = up
    children: dict[str | None, list[str]] = {}
    for uuid, up in parent.items():
        children.setdefault(up if up in parent else None, []).append(uuid)
    for uuid, up in parent.items():
        index, typed, stamp = position[uuid]
        key = up if up in parent else None
        if uuid in spine or not typed or (key is not None and key not in spine):
            continue
        replacement = spine_child.get(key)
        if replacement is None:
            continue
        later, later_typed, later_stamp = position[replacement]
        if (
            not later_typed
            or later <= index
            or (stamp is not None and stamp == later_stamp)
        ):
            continue
        count = spawned = 0
        todo = [uuid]
        while todo:
            current = todo.pop()
            if current in survey.abandoned or current in spine:
                continue
            survey.abandoned[current] = uuid
            count += 1
            for call in spawns_at.get(current, ()):
                survey.abandoned_calls.add(call)
                spawned += 1
            todo.extend(children.get(current, ()))
        survey.branch_lines[uuid] = count
        survey.branch_spawns[uuid] = spawned


def _find_children(
    context: Context, path: Path, session_id: str, survey: Survey
) -> None:
    """Sub-agents of all three layouts, linked to their spawning call where the files say so."""
    call_of = {agent: call for call, agent in survey.result_agents.items()}
    folder = (
        path.with_suffix("") / "subagents"
    )  # 2.1: <session>/subagents/, nested ones too
    for entry in files.entries(folder):
        agent = _agent_file(entry.name)
        if agent is None:
            continue
        meta = files.read_json_file(folder / f"agent-{agent}.meta.json")
        meta = meta if isinstance(meta, dict) else {}
        context.children[agent] = Child(
            agent,
            Path(entry.path),
            rec.string(meta.get("agentType")),
            rec.string(meta.get("description")),
            rec.string(meta.get("toolUseId")) or call_of.get(agent),
            rec.string(meta.get("parentAgentId")),
        )
    marker = b'"sessionId":"' + session_id.encode() + b'"'
    for entry in files.entries(path.parent):  # 2.0: agent-<id>.jsonl beside the parent
        agent = _agent_file(entry.name)
        if agent is None or agent in context.children:
            continue
        if agent in call_of or _mentions(Path(entry.path), marker):
            context.children[agent] = Child(
                agent, Path(entry.path), call_id=call_of.get(agent)
            )
    for (
        call,
        agent,
    ) in survey.inline_children.items():  # 1.0: side chains in the main file
        context.children.setdefault(agent, Child(agent, None, call_id=call))
    for agent, child in context.children.items():
        if child.call_id:
            context.by_call[child.call_id] = agent
    for call in survey.abandoned_calls:  # counted in their branch's meta event instead
        agent = context.by_call.get(call)
        if agent is not None:
            context.started.add(agent)


def _agent_file(name: str) -> str | None:
    if name.startswith("agent-") and name.endswith(".jsonl"):
        return name[len("agent-") : -len(".jsonl")] or None
    return None


def _mentions(path: Path, marker: bytes) -> bool:
    try:
        return any(marker in line.data for line in files.head_lines(path, 5))
    except OSError:
        return False


def _merge(context: Context, lead: Stream) -> Iterator[Event]:
    """Interleave the lead and sub-agent streams by time; a child starts at its spawn.

    The heap holds one pending event per open stream, so memory does not grow with the
    files. A child's file is opened when its spawn is emitted; one nothing links to is
    opened when the merge reaches its first timestamp, so few files are open at once.
    """
    heap: list[tuple[float, int, Event | None, Iterator[Event] | str]] = []
    tick = itertools.count()

    def advance(stream: Iterator[Event], floor: float) -> None:
        for event in stream:
            key = event.time.timestamp() if event.time is not None else floor
            heapq.heappush(heap, (key, next(tick), event, stream))
            return

    def start(agent: str, floor: float) -> None:
        child = context.children.get(agent)
        if agent in context.started or child is None:
            return
        context.started.add(agent)
        if child.path is not None:  # an inline side chain is already in the lead stream
            advance(Stream(context, child.path, agent, child=child).events(), floor)

    def schedule(agents: list[str], floor: float) -> None:
        for agent in agents:
            child = context.children[agent]
            first = _first_time(child.path) if child.path is not None else None
            heapq.heappush(heap, (max(first or floor, floor), next(tick), None, agent))

    advance(lead.events(), float("-inf"))
    # nothing links these to a spawn: they join by time alone
    schedule(
        [a for a, c in context.children.items() if c.call_id is None], float("-inf")
    )
    seq = 0
    while heap:
        key, _, event, source = heapq.heappop(heap)
        if isinstance(source, str):
            start(source, key)
        elif event is not None:
            yield _numbered(event, seq)
            seq += 1
            child_id = event.extra.get("child_id") if event.kind == "subagent" else None
            if isinstance(child_id, str):
                start(child_id, key)
            advance(source, key)
        if not heap:  # children whose spawn never showed (a torn line, a lost parent)
            schedule([a for a in context.children if a not in context.started], key)


def _first_time(path: Path) -> float | None:
    """The first timestamp in a file's first lines, as a merge key."""
    try:
        head = files.head_lines(path, 8)
    except OSError:
        return None
    for line in head:
        if b'"timestamp"' in line.data:
            record = rec.load(line.data, line.complete, line.number, None, "")
            stamp = rec.moment(record.get("timestamp")) if record else None
            if stamp is not None:
                return stamp.timestamp()
    return None


def _numbered(event: Event, seq: int) -> Event:
    """Give a stream's draft its place in the session.

    Drafts are fresh objects no one else holds yet, so setting the field the way a frozen
    dataclass's own __init__ does is safe, and far cheaper than dataclasses.replace.
    """
    object.__setattr__(event, "seq", seq)
    return event


def _next_line(path: Path, offset: int) -> int:
    """`offset` if a line starts there, else the start of the next line."""
    with open(path, "rb") as stream:
        stream.seek(offset - 1)
        if stream.read(1) == b"\n":
            return offset
        position = offset
        while chunk := stream.read(files.CHUNK):
            newline = chunk.find(b"\n")
            if newline >= 0:
                return position + newline + 1
            position += len(chunk)
        return position
