"""Reading one Claude Code session: a survey of the main file, its sub-agents, a merge by time.

The survey is a first pass over the main file that keeps only ids (the uuid graph, spawn
calls, side-chain roots), so branches and links are known before any event is emitted.
Child files are opened lazily, when the merge reaches their spawn.
"""

from __future__ import annotations

import heapq
import itertools
import os
import stat
from array import array
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import BinaryIO

import msgspec

from .. import files, folders, passcache
from ..diagnostics import Diagnostics
from ..idtable import IdTable
from ..model import Event
from . import _claude_records as rec
from ._claude_stream import Child, Context, Stream, Survey
from ._values import SET_SEQ as set_seq
from ._values import renumber, type_tag


def read(
    path: Path, session_id: str, diagnostics: Diagnostics, *, full: bool, offset: int
) -> Iterator[Event]:
    """The events of the session whose main transcript is `path`, numbered from 0."""
    own = _agent_file(path.name) is not None  # a sub-agent's file, shown on its own
    context = Context(session_id, diagnostics, full, side_chain_is_lead=own)
    if (
        offset > 0
    ):  # `show --tail`: the main file from the next whole line, nothing else
        stream = Stream(context, path, None, offset=files.line_start(path, offset))
        for seq, event in enumerate(stream.events()):
            yield renumber(event, seq)
        return
    survey = _survey(path, keep_long_lines=not full, side_chain_is_lead=own)
    _find_children(context, path, session_id, survey)
    yield from _merge(context, Stream(context, path, None, survey=survey))


# What the survey needs of a line: ids, flags and block kinds, never the payloads (they
# are skipped unread). A value of another type than these fails the decode: such a line
# is read the old way, so the types only pick the common case. They hold no cycles, so
# the garbage collector need not track them (`gc=False`: a cheaper decode).


class _Block(msgspec.Struct, gc=False):
    type: str | None = None
    name: str | None = None
    tool_use_id: str | None = None


class _Message(msgspec.Struct, gc=False):
    content: str | list[_Block] | None = None


class _Outcome(msgspec.Struct, gc=False):
    agentId: str | None = None


class _Ids(msgspec.Struct, gc=False):
    uuid: str | None = None
    parentUuid: str | None = None
    logicalParentUuid: str | None = None
    isSidechain: bool | None = None
    isMeta: bool | None = None
    isCompactSummary: bool | None = None
    type: str | None = None
    timestamp: str | None = None
    message: _Message | None = None
    toolUseResult: _Outcome | str | list[msgspec.Raw] | int | float | bool | None = None


_decode_ids = msgspec.json.Decoder(_Ids).decode


def _survey(
    path: Path, *, keep_long_lines: bool = True, side_chain_is_lead: bool = False
) -> Survey:
    """Pass one: the uuid graph (for abandoned branches) and who spawned which side chain.

    Each line is decoded into `_Ids`, which skips text and tool payloads without building
    them; a line is parsed whole only when it may be a typed prompt, a spawn, or a side
    chain's first line. A line that type refuses (broken JSON, an odd shape) is read as
    before: placed from its bytes when its ids are plain, else parsed. With
    `keep_long_lines`, the over-long lines compacted here are kept for the event pass.
    With `side_chain_is_lead` (a sub-agent's own file), side-chain lines are the main
    chain.

    A big file's pass state is kept in sessdex's cache (`passcache`): opened again, only
    the lines added since are read.
    """
    try:
        stream: BinaryIO | None = files.open_binary(path)
    except OSError:
        stream = None
    cache_kind = "claude-survey-lead" if side_chain_is_lead else "claude-survey"
    state = _PassState.resumed(path, cache_kind, stream)
    survey, graph = state.survey, state.graph
    side_prompts, task_prompts = state.side_prompts, state.task_prompts

    def parsed(record: dict[str, object], index: int) -> None:
        """A line read whole: the same rules, from the object."""
        uuid = rec.string(record.get("uuid"))
        if uuid is None:
            return
        kind = type_tag(record.get("type"))
        up = rec.string(record.get("parentUuid"))
        if record.get("isSidechain") is True and not side_chain_is_lead:  # 1.0: inline
            root = survey.side_root.get(up, uuid) if up else uuid
            survey.side_root[uuid] = root
            if root == uuid:
                survey.root_agent[uuid] = rec.string(record.get("agentId")) or uuid
                task = rec.message_text(record) if kind == "user" else None
                if task:
                    side_prompts.setdefault(rec.task_key(task), []).append(uuid)
            return
        # a compaction boundary starts a chain that logically continues the old one
        up = up or rec.string(record.get("logicalParentUuid"))
        typed = kind == "user" and rec.prompt(record) != (None, None)
        stamp = rec.string(record.get("timestamp"))
        node = graph.place(uuid, up, index, typed, stamp)
        if node < 0:
            return
        for block in rec.blocks(record):
            call, task = rec.spawn(block)
            if call:
                graph.spawns_at.setdefault(node, []).append(call)
                task_prompts.append((call, rec.task_key(task)))
        outcome = record.get("toolUseResult")
        if kind == "user" and isinstance(outcome, dict):
            agent = rec.string(outcome.get("agentId"))
            for block in rec.blocks(record) if agent else ():
                call = rec.string(block.get("tool_use_id"))
                if call and agent:
                    survey.result_agents[call] = agent

    index = state.lines - 1  # the last line's number in the file, counted from 0
    complete = True
    with stream or nullcontext():
        if stream is not None and stream.seekable():
            stream.seek(state.offset)  # where the lines not surveyed yet start
        long_lines = survey.long_lines if keep_long_lines else None
        lines = (
            rec.split(stream, str(path), state.offset, long_lines)
            if stream is not None
            else ()
        )
        decode, place, spawn_tools = _decode_ids, graph.place, rec.SPAWN_TOOLS
        for index, (number, data, complete, _, _) in enumerate(lines, state.lines):
            try:
                ids = decode(data)
            except (msgspec.DecodeError, RecursionError):
                # broken or odd: most such lines are still placed from their bytes alone
                data = bytes(data)  # a view of the read (`rec.split`): searched here
                if b'"uuid"' not in data:
                    continue
                plain = _ids(data)
                if plain is not None and not _telling(data):
                    own, parent, sidechain = plain
                    if not sidechain or side_chain_is_lead:
                        graph.place(own, parent, index, False, None)
                        continue
                    if parent in survey.side_root:
                        survey.side_root[own] = survey.side_root[parent]
                        continue
                record = rec.load(data, complete, number, None, "")
                if record is not None:
                    parsed(record, index)
                continue
            uuid = ids.uuid
            if not uuid:
                continue
            up = ids.parentUuid or None
            message = ids.message
            content = message.content if message is not None else None
            blocks = content if isinstance(content, list) else ()
            spawn = results = False
            for block in blocks:
                kind = block.type
                if kind == "tool_use":
                    spawn = spawn or block.name in spawn_tools
                elif kind == "tool_result":
                    results = True
            typed = False
            if ids.isSidechain and not side_chain_is_lead:
                root = survey.side_root.get(up, uuid) if up else uuid
                if root != uuid:
                    survey.side_root[uuid] = root
                    continue
                spawn = True  # a side chain's first line: its agent and task
            elif ids.type == "user" and not (ids.isMeta or ids.isCompactSummary):
                if isinstance(content, str):
                    typed = rec.prompt({"message": {"content": content}}) != (
                        None,
                        None,
                    )
                elif blocks and not results:
                    spawn = True  # typed or not, its text blocks tell
            if spawn:  # parse it whole
                record = rec.load(data, complete, number, None, "")
                if record is not None:
                    parsed(record, index)
                continue
            up = up or ids.logicalParentUuid or None
            if place(uuid, up, index, typed, ids.timestamp or None) < 0:
                continue
            outcome = ids.toolUseResult
            if ids.type == "user" and isinstance(outcome, _Outcome) and outcome.agentId:
                for block in blocks:
                    if block.tool_use_id:
                        survey.result_agents[block.tool_use_id] = outcome.agentId
        if stream is not None and complete:
            state.keep(path, cache_kind, stream, index + 1)
    for call, key in task_prompts:  # 1.0 side chains open with the Task's prompt
        waiting = side_prompts.get(key)
        if waiting:
            survey.inline_children[call] = survey.root_agent[waiting.pop(0)]
    _find_abandoned(survey, graph, _rewound_leaf(path))
    return survey


ACTIVE_LEAF = b'"active-leaf"'
LEAF_TAIL = 64 * 1024  # bytes searched back from the end for a rewind left unanswered


def _rewound_leaf(path: Path) -> str | None:
    """The leaf a rewind kept, where nothing was written under it since (Qoder CLI's
    `active-leaf` line with `explicit` and `rewound`, newer than every conversation line):
    the chain ends there, not at the last line. Else None (Claude Code writes no such line;
    a prompt after the rewind makes the last line's chain the kept one anyway)."""
    try:
        _, data = files.tail_bytes(path, LEAF_TAIL)
    except OSError:
        return None
    if ACTIVE_LEAF not in data:
        return None
    for line in reversed(data.split(b"\n")):
        if ACTIVE_LEAF in line:
            record = rec.load(line, True, 0, None, "")
            if record is None or record.get("type") != "active-leaf":
                continue
            if record.get("explicit") is True and record.get("rewound") is True:
                return rec.string(record.get("leafUuid"))
            return None  # the newest leaf is an ordinary one: the last line's
        if b'"uuid":' in line:
            return None  # a line written after every leaf record
    return None


class _Saved(msgspec.Struct, array_like=True):
    """A survey's state after a file's first bytes, as `passcache` keeps it."""

    lines: int
    # the byte sizes of the graph's arrays (its uuids, their ends, parents, placed),
    # which follow this record in the entry as they are: written from the arrays
    # themselves, never encoded into a copy beside them
    sizes: list[int]
    typed: list[tuple[int, int, str | None]]
    spawns_at: dict[int, list[str]]
    last: int
    last_uuid: str | None
    side_root: dict[str, str]
    root_agent: dict[str, str]
    result_agents: dict[str, str]
    side_prompts: dict[int, list[str]]
    task_prompts: list[tuple[str, int]]


class _PassState:
    """What the survey's loop carries from line to line, taken from the cache when a
    big file only grew since a run kept it."""

    def __init__(self) -> None:
        self.survey = Survey()
        self.graph = _Graph()
        self.side_prompts: dict[int, list[str]] = {}  # task key -> side-chain roots
        self.task_prompts: list[tuple[str, int]] = []  # (spawn call, task key)
        self.offset = 0  # where the lines not yet surveyed start
        self.lines = 0  # how many lines were surveyed

    @classmethod
    def resumed(cls, path: Path, kind: str, stream: BinaryIO | None) -> _PassState:
        """The state kept for the file `stream` reads (`path` when it was opened), or a
        fresh one. The stream's position is left anywhere."""
        state = cls()
        if stream is None or path.suffix != ".jsonl":
            return state
        kept = passcache.load_with(path, kind, _restored, stream)
        if kept is None:  # none, or damaged (DecodeError is a ValueError): anew
            return state
        saved, graph = kept[1]
        graph.typed = {node: (line, stamp) for node, line, stamp in saved.typed}
        graph.spawns_at = saved.spawns_at
        graph.last, graph.last_uuid = saved.last, saved.last_uuid
        state.graph = graph
        state.survey.side_root = saved.side_root
        state.survey.root_agent = saved.root_agent
        state.survey.result_agents = saved.result_agents
        state.side_prompts, state.task_prompts = saved.side_prompts, saved.task_prompts
        state.offset, state.lines = kept[0], saved.lines
        return state

    def keep(self, path: Path, kind: str, stream: BinaryIO, lines: int) -> None:
        """Keep the state for the file's bytes read so far, if the file ended there on a
        whole line (a line still being written would be read twice)."""
        if not stream.seekable() or path.suffix != ".jsonl":
            return
        end = stream.tell()
        if end == self.offset:
            return  # nothing was added: what is kept stands
        if end < passcache.MIN_SIZE or end != os.fstat(stream.fileno()).st_size:
            return
        stream.seek(end - 1)
        if stream.read(1) != b"\n":
            return
        graph, survey = self.graph, self.survey
        blob, ends = graph.nodes.views()
        arrays = (
            blob,
            ends,
            memoryview(graph.parent).cast("B"),
            memoryview(graph.placed),
        )
        saved = _Saved(
            lines=lines,
            sizes=[view.nbytes for view in arrays],
            typed=[(node, line, stamp) for node, (line, stamp) in graph.typed.items()],
            spawns_at=graph.spawns_at,
            last=graph.last,
            last_uuid=graph.last_uuid,
            side_root=survey.side_root,
            root_agent=survey.root_agent,
            result_agents=survey.result_agents,
            side_prompts=self.side_prompts,
            task_prompts=self.task_prompts,
        )
        try:
            head = msgspec.msgpack.encode(saved)
        except (UnicodeEncodeError, msgspec.EncodeError):
            head = None  # a lone surrogate in an id (JSON allows one; UTF-8 does not)
        try:
            if head is not None:
                size = len(head).to_bytes(8, "little")
                passcache.save(path, kind, end, [size, head, *arrays], stream)
        finally:
            for view in arrays:
                view.release()  # the graph's arrays may grow again


def _restored(entry: BinaryIO, size: int) -> tuple[_Saved, _Graph]:
    """The record and the graph `_PassState.keep` wrote, `size` bytes of `entry` from
    where it stands: each array read into its own buffer, the entry never held whole.
    ValueError (msgspec's DecodeError is one) where it is damaged."""
    head_size = int.from_bytes(passcache.read_exactly(entry, 8), "little")
    if head_size > size - 8:
        raise ValueError("the record does not fit the entry")
    saved = msgspec.msgpack.decode(
        passcache.read_exactly(entry, head_size), type=_Saved
    )
    sizes = saved.sizes
    if len(sizes) != 4 or min(sizes) < 0 or sum(sizes) != size - 8 - head_size:
        raise ValueError("the graph's arrays do not fit the entry")
    graph = _Graph()
    blob = passcache.read_exactly(entry, sizes[0])
    graph.nodes = IdTable.from_parts(blob, passcache.read_exactly(entry, sizes[1]))
    graph.parent = array("i")
    graph.parent.frombytes(passcache.read_exactly(entry, sizes[2]))
    graph.placed = passcache.read_exactly(entry, sizes[3])
    if not len(graph.parent) == len(graph.placed) == len(graph.nodes):
        raise ValueError("the graph's arrays do not fit together")
    return saved, graph


class _Graph:
    """The main chain's uuid graph, each uuid numbered once (a node) as it is met.

    Per node: its parent (`array`), whether its own line was read (a parent may only be
    named), and for typed prompts their place and time; spawn calls per node. The uuids
    sit in an `IdTable`: a dict of them would be the survey's largest cost, some 45 MB a
    GB of transcript.
    """

    def __init__(self) -> None:
        self.nodes = IdTable()
        self.parent = array("i")  # node -> parent node, -1 for none
        self.placed = bytearray()  # node -> 1 once its line was read
        self.typed: dict[int, tuple[int, str | None]] = {}  # node -> (line, timestamp)
        self.spawns_at: dict[int, list[str]] = {}
        self.last = -1
        self.last_uuid: str | None = None

    def node(self, uuid: str) -> int:
        found = self.nodes.add(uuid)
        if found == len(self.parent):
            self.parent.append(-1)
            self.placed.append(0)
        return found

    def place(
        self, uuid: str, up: str | None, index: int, typed: bool, stamp: str | None
    ) -> int:
        """The line's node, or -1 for a replayed line (the first copy holds its place).

        `stamp` is kept for typed prompts only: it tells a rewind from a resend.
        """
        placed = self.placed
        node = self.nodes.add(uuid)
        if node == len(placed):
            self.parent.append(-1)
            placed.append(1)
        elif placed[node]:
            return -1
        else:
            placed[node] = 1
        if up is not None:
            # most lines continue the line before them: no lookup for those
            self.parent[node] = self.last if up == self.last_uuid else self.node(up)
        if typed:
            self.typed[node] = (index, stamp)
        self.last, self.last_uuid = node, uuid
        return node

    def up(self, node: int) -> int:
        """The node's parent if its line was read, else -1 (a root, as if it had none)."""
        parent = self.parent[node]
        return parent if parent >= 0 and self.placed[parent] else -1

    def children(self) -> tuple[array[int], array[int]]:
        """Every read node's children, packed: node n's are `kids[first[n]:first[n + 1]]`."""
        count = len(self.parent)
        first = array("i", bytes(4 * (count + 1)))
        for node in range(count):
            if self.placed[node] and (parent := self.up(node)) >= 0:
                first[parent + 1] += 1
        for node in range(count):
            first[node + 1] += first[node]
        kids = array("i", bytes(4 * first[count]))
        filled = array("i", first)
        for node in range(count):
            if self.placed[node] and (parent := self.up(node)) >= 0:
                kids[filled[parent]] = node
                filled[parent] += 1
        return first, kids


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


def _find_abandoned(survey: Survey, graph: _Graph, leaf: str | None = None) -> None:
    """Mark the subtrees a rewind left behind.

    The active chain runs from the last line back through its parents, or from `leaf`, a
    rewind's kept leaf with nothing under it yet: then all below it is abandoned. A node off that
    chain is the start of an abandoned branch only if it is a typed prompt whose parent is
    on the chain, and the chain's own child of that parent is a later typed prompt (the
    rewind's replacement). Other multi-child shapes (parallel tool results, hooks,
    progress lines, retries) are how Claude Code records one conversation: left alone.
    """
    placed, typed = graph.placed, graph.typed
    spine = bytearray(len(graph.parent))
    spine_child = array("i", [-1]) * (len(graph.parent) + 1)  # parent + 1 -> its child
    node, parents = graph.last, graph.parent
    cut = graph.nodes.get(leaf) if leaf is not None else -1
    if cut >= 0 and placed[cut]:
        node = cut
    else:
        cut = -1
    while node >= 0 and placed[node] and not spine[node]:
        spine[node] = 1
        parent = parents[node]  # `graph.up(node)` inline
        spine_child[parent + 1 if parent >= 0 and placed[parent] else 0] = node
        node = parent
    abandoned: dict[int, int] = {}  # node -> its branch's first node
    branches: dict[int, tuple[int, int]] = {}  # first node -> (lines, spawns)
    children: tuple[array[int], array[int]] | None = None
    starts: list[int] = []
    if cut >= 0:  # every branch under the kept leaf was rewound
        children = graph.children()
        first, kids = children
        starts = [kid for kid in kids[first[cut] : first[cut + 1]] if not spine[kid]]
    for start, (index, stamp) in typed.items():
        key = graph.up(start)
        if spine[start] or (key >= 0 and not spine[key]):
            continue
        replacement = spine_child[key + 1]
        later = typed.get(replacement) if replacement >= 0 else None
        if (
            later is None
            or later[0] <= index
            or (stamp is not None and stamp == later[1])
        ):
            continue
        starts.append(start)
    for start in starts:
        if start in abandoned:
            continue
        if children is None:  # built only where a rewind shows
            children = graph.children()
        first, kids = children
        count = spawned = 0
        todo = [start]
        while todo:
            current = todo.pop()
            if current in abandoned or spine[current]:
                continue
            abandoned[current] = start
            count += 1
            for call in graph.spawns_at.get(current, ()):
                survey.abandoned_calls.add(call)
                spawned += 1
            todo.extend(kids[first[current] : first[current + 1]])
        branches[start] = (count, spawned)
    if not abandoned:
        return
    name = graph.nodes
    for node, start in abandoned.items():
        survey.abandoned[name[node]] = name[start]
    for start, (count, spawned) in branches.items():
        survey.branch_lines[name[start]] = count
        survey.branch_spawns[name[start]] = spawned


def _not_files(
    context: Context, call_of: dict[str, str], places: tuple[Path, ...]
) -> None:
    """Of the agents a result names that no layout found, those whose transcript's
    place holds no regular file (a pipe: a listing passes it over): one stat each."""
    for agent in call_of:
        if agent in context.children or "/" in agent or "\\" in agent:
            continue  # an id a record names, never a path out of the folder
        for place in places:
            name = place / f"agent-{agent}.jsonl"
            try:
                mode = os.stat(name).st_mode
            except (OSError, ValueError):
                continue
            if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
                context.not_files[agent] = str(name)
                break


def _find_children(
    context: Context, path: Path, session_id: str, survey: Survey
) -> None:
    """Sub-agents of all three layouts, linked to their spawning call where the files say so."""
    call_of = {agent: call for call, agent in survey.result_agents.items()}
    # 2.1: <session>/subagents/, nested ones too; a sub-agent shown on its own has its
    # children beside it, naming it as their parentAgentId
    nested = context.side_chain_is_lead and path.parent.name == "subagents"
    folder = path.parent if nested else path.with_suffix("") / "subagents"
    every, by_parent = folders.kept(
        ("claude subagents", str(folder)),
        lambda: _subagent_files(folder, context.diagnostics),
    )
    # a sibling, or a child of another agent, is not one of a nested one's children
    for kid, kid_path, kid_meta, parent in (
        by_parent.get(session_id, []) if nested else every
    ):
        if kid == session_id:
            continue
        context.children[kid] = Child(
            kid,
            Path(kid_path),
            rec.string(kid_meta.get("agentType")),
            rec.string(kid_meta.get("description")),
            rec.string(kid_meta.get("toolUseId")) or call_of.get(kid),
            None if nested else parent,
            observer=kid_meta.get("isObserver") is True,
        )
    agent: str | None
    for agent, agent_path, run in () if nested else workflow_agents(folder):
        if agent == session_id or agent in context.children:
            continue
        meta = files.read_json_file(
            run / f"agent-{agent}.meta.json", diagnostics=context.diagnostics
        )
        meta = meta if isinstance(meta, dict) else {}
        context.children[agent] = Child(
            agent,
            agent_path,
            rec.string(meta.get("agentType")) or "workflow",
            rec.string(meta.get("description")) or f"workflow {run.name}",
            rec.string(meta.get("toolUseId")) or call_of.get(agent),
            rec.string(meta.get("parentAgentId")),
        )
    if context.side_chain_is_lead:
        # a sub-agent's file names its lead's session, never an agent's: one shown on
        # its own has none beside it but those its calls name (a look at every
        # sibling, for each of thousands in a tree, cost their count squared)
        beside = folders.kept(
            ("claude agent files", str(path.parent)),
            lambda: {
                name: entry.path
                for entry in folders.entries(path.parent)
                if (name := _agent_file(entry.name)) is not None
            },
        )
        for named in sorted(
            (a for a in call_of if a in beside), key=lambda a: f"agent-{a}.jsonl"
        ):
            context.children.setdefault(
                named, Child(named, Path(beside[named]), call_id=call_of[named])
            )
    for entry in (
        [] if context.side_chain_is_lead else folders.entries(path.parent)
    ):  # 2.0: agent-<id>.jsonl beside the parent
        agent = _agent_file(entry.name)
        if agent is None or agent in context.children:
            continue
        if agent in call_of or _mentions(Path(entry.path), session_id):
            context.children[agent] = Child(
                agent, Path(entry.path), call_id=call_of.get(agent)
            )
    for (
        call,
        agent,
    ) in survey.inline_children.items():  # 1.0: side chains in the main file
        context.children.setdefault(agent, Child(agent, None, call_id=call))
    _not_files(context, call_of, (folder, path.parent))
    for agent, child in context.children.items():
        if child.call_id:
            context.by_call[child.call_id] = agent
        elif child.path is not None:  # joined by time, or to a spawn made just before
            child.first, child.task = _opening(child.path)
    for call in survey.abandoned_calls:  # counted in their branch's meta event instead
        agent = context.by_call.get(call)
        if agent is not None:
            context.started.add(agent)


def _subagent_files(
    folder: Path, diagnostics: Diagnostics
) -> tuple[
    list[tuple[str, str, dict[str, object], str | None]],
    dict[str | None, list[tuple[str, str, dict[str, object], str | None]]],
]:
    """The sub-agent files in `folder` (agent, its file, its meta, the agent its meta
    names as its parent), in name order, and the same by that parent: looked up by
    each of thousands of siblings a tree reads in turn (`folders.kept`)."""
    every = []
    by_parent: dict[str | None, list[tuple[str, str, dict[str, object], str | None]]]
    by_parent = {}
    for entry in folders.entries(folder):
        agent = _agent_file(entry.name)
        if agent is None:
            continue
        meta = files.read_json_file(
            folder / f"agent-{agent}.meta.json", diagnostics=diagnostics
        )
        meta = meta if isinstance(meta, dict) else {}
        parent = rec.string(meta.get("parentAgentId"))
        every.append((agent, entry.path, meta, parent))
        by_parent.setdefault(parent, []).append(every[-1])
    return every, by_parent


def workflow_agents(subagents: Path) -> Iterator[tuple[str, Path, Path]]:
    """Agents a Workflow run launched (`<subagents>/workflows/<run>/agent-<id>.jsonl`):
    (agent id, its transcript, its run's folder)."""
    for run in folders.entries(subagents / "workflows"):
        if not run.is_dir():
            continue
        for entry in folders.entries(run.path):
            agent = _agent_file(entry.name)
            if agent is not None:
                yield agent, Path(entry.path), Path(run.path)


def _agent_file(name: str) -> str | None:
    if name.startswith("agent-") and name.endswith(".jsonl"):
        return name[len("agent-") : -len(".jsonl")] or None
    return None


def _mentions(path: Path, session_id: str) -> bool:
    """Whether the first lines of `path` name `session_id` as theirs. Claude Code writes
    compact JSON, looked for as bytes; a file with other spacing (re-written by a tool)
    is looked at again, the key and its value apart, where the id is in a line at all."""
    value = b'"' + session_id.encode() + b'"'
    try:
        return any(
            rec.holds(line.data, b"sessionId", value)
            for line in files.head_lines(path, 5)
        )
    except OSError:
        return False


def _merge(context: Context, lead: Stream) -> Iterator[Event]:
    """Interleave the lead and sub-agent streams by time; a child starts at its spawn.

    The heap holds one pending event per open stream, so memory does not grow with the
    files. A child's file is opened when its spawn is emitted; one nothing links to is
    opened when the merge reaches its first timestamp, so few files are open at once.
    """
    if not context.children:  # the lead alone: its own order
        for seq, own in enumerate(lead.events()):
            set_seq(own, seq)  # `renumber`, inline: a call less an event
            yield own
        return
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
            if child.first is None and child.path is not None:
                child.first = _opening(child.path)[0]
            first = child.first
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
        while event is not None:  # this stream's events, while none on the heap is due
            set_seq(event, seq)
            yield event
            seq += 1
            child_id = event.extra.get("child_id") if event.kind == "subagent" else None
            if isinstance(child_id, str):
                start(child_id, key)
            # `advance`, without the push and pop when this stream's next event comes
            # first anyway: before every entry on the heap (a tie goes to the entry, which
            # was pushed earlier)
            following = next(source, None)  # type: ignore[arg-type]  # a stream here
            if following is None:
                break
            when = following.time
            key = when.timestamp() if when is not None else key
            if heap and not key < heap[0][0]:
                heapq.heappush(heap, (key, next(tick), following, source))
                break
            event = following
        if not heap:  # children whose spawn never showed (a torn line, a lost parent)
            schedule([a for a in context.children if a not in context.started], key)


def _opening(path: Path) -> tuple[float | None, int | None]:
    """A child file's first timestamp (a merge key) and its first user line's text as a
    task key: that line is the prompt of the call that spawned it, where no meta file or
    result names the call (a nested sub-agent's spawner is not surveyed)."""
    try:
        head = files.head_lines(path, 8)
    except OSError:
        return None, None
    first: float | None = None
    task: int | None = None
    asked = False  # the first user line was met: only it is the task
    for line in head:
        data = line.data
        wants_time = first is None and b'"timestamp"' in data
        wants_task = not asked and b'"user"' in data
        if not (wants_time or wants_task):
            continue
        record = rec.load(data, line.complete, line.number, None, "")
        if record is None:
            continue
        if wants_time:
            stamp = rec.moment(record.get("timestamp"))
            first = stamp.timestamp() if stamp is not None else None
        if wants_task and record.get("type") == "user":
            asked = True
            text = rec.message_text(record)
            task = rec.task_key(text) if text else None
        if first is not None and asked:
            break
    return first, task
