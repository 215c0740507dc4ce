"""The sub-agent tree of a session, built from its events alone (no app knowledge).

A `subagent` event opens a child node; events carrying that child's `agent_id` count
towards it; the tool result answering the spawning call closes it (done, or failed when
it is an error), and so does the sub-agent's own turn end (its result may not be written
yet). A sub-agent sent to the background is answered at once (the result says
`launched`): it ends where the app notes its end (a `meta` event's `subagent_status`), else
with its own turn end or error. Nesting follows from sub-agents spawning sub-agents.
`settle` then calls an agent still running in a session nobody wrote to for half an
hour stopped: the app exited or was interrupted without noting an end.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from .model import Event, JSONValue, Usage
from .status import ENDED_AFTER


@dataclass(slots=True, eq=False)  # a node is itself: compared by identity, as in a tree
class AgentNode:
    id: str
    app: str | None = None  # the session's, which its agents share (`list --json`'s)
    agent_type: str | None = None
    agent_name: str | None = None  # the name the lead gave it, where the app has names
    description: str | None = None
    # the session's title, as `list --json` gives it: the tree's top node alone has one
    title: str | None = None
    # the session's creation and last change, as `list --json` gives them (`created`,
    # `updated`): the top node alone, as its title; `started`/`ended` are its events'
    created: str | None = None
    updated: str | None = None
    status: str = "running"  # running / done / failed / stopped (see `settle`)
    usage: Usage = field(default_factory=Usage)
    tool_calls: int = 0
    events: int = 0
    started: datetime | None = None
    ended: datetime | None = None
    call_id: str | None = None
    # a background agent the app runs beside another to watch it (Claude Code's
    # observers), not one the lead gave work to
    observer: bool = False
    # a sub-agent the index lists under this lead whose spawn the events read do not
    # hold (one spawned on a branch a rewind abandoned): placed by `add_unplaced`
    unplaced: bool = False
    children: list[AgentNode] = field(default_factory=list)

    @property
    def duration_seconds(self) -> float | None:
        if self.started is None or self.ended is None:
            return None
        return max(0.0, (self.ended - self.started).total_seconds())

    def fields(self) -> dict[str, JSONValue]:
        """This agent's `tree --json` object without its children."""
        from .views.records import iso, usage_record

        return {
            "app": self.app,
            "id": self.id,
            "agent_type": self.agent_type,
            "agent_name": self.agent_name,
            "description": self.description,
            "title": self.title,
            "status": self.status,
            "usage": usage_record(self.usage),
            "tool_calls": self.tool_calls,
            "events": self.events,
            "started": iso(self.started),
            "ended": iso(self.ended),
            "created": self.created,
            "updated": self.updated,
            "duration_seconds": self.duration_seconds,
            "observer": self.observer,
            "unplaced": self.unplaced,
        }

    def record(self) -> dict[str, JSONValue]:
        """The `tree --json` object, children nested; built without recursion: a chain
        of thousands of nested spawns is data, not a bug."""
        top = self.fields()
        stack = [(self, top)]
        while stack:
            node, record = stack.pop()
            children: list[JSONValue] = []
            record["children"] = children
            for child in node.children:
                fields = child.fields()
                children.append(fields)
                stack.append((child, fields))
        return top

    def json(self) -> bytes:
        """`record()` as JSON, written without recursion: an encoder stops at some
        hundred levels (orjson at 255, two a generation: an object and its list)."""
        from .views.records import dumps

        out: list[bytes] = []
        stack: list[AgentNode | bytes] = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, bytes):
                out.append(item)
                continue
            out.append(dumps(item.fields())[:-1] + b',"children":[')
            stack.append(b"]}")
            for index, child in enumerate(reversed(item.children)):
                if index:
                    stack.append(b",")
                stack.append(child)
        return b"".join(out)

    def walk(self) -> Iterable[tuple[int, AgentNode]]:
        stack: list[tuple[int, AgentNode]] = [(0, self)]
        seen: set[int] = set()
        while stack:
            depth, node = stack.pop()
            if id(node) in seen:  # never loop, whatever the events claimed
                continue
            seen.add(id(node))
            yield depth, node
            stack.extend((depth + 1, child) for child in reversed(node.children))


# a sub-agent's last event that says it finished, when no call result closes it
_FINAL = ("turn_end", "assistant")


def build_tree(
    session_id: str, events: Iterable[Event], agent_type: str | None = None
) -> AgentNode:
    """The lead agent as root, each sub-agent under the agent that spawned it."""
    root = AgentNode(session_id, agent_type=agent_type or "lead")
    nodes: dict[str | None, AgentNode] = {None: root, session_id: root}
    parents: dict[int, list[AgentNode]] = {}  # id(node) -> the nodes it sits under
    by_call: dict[str, AgentNode] = {}
    last_kind: dict[str, str] = {}
    launched: set[int] = set()  # id(node) of sub-agents running in the background
    noted: dict[int, str] = {}  # id(node) -> the end status the app noted for it
    noted_early: dict[str, str] = {}  # child id -> the same, noted before its spawn
    ends_turns: set[str] = set()  # agents seen writing a turn end

    def attach(parent: AgentNode, child: AgentNode) -> None:
        parent.children.append(child)
        parents.setdefault(id(child), []).append(parent)

    for event in events:
        node = nodes.get(event.agent_id)
        if node is None:  # events of a sub-agent whose spawn we did not see
            node = AgentNode(event.agent_id or "?")
            nodes[event.agent_id] = node
            attach(root, node)
        node.events += 1
        if event.time is not None:
            if node.started is None or event.time < node.started:
                node.started = event.time
            if node.ended is None or event.time > node.ended:
                node.ended = event.time
        if event.kind == "subagent":
            child_id = event.extra.get("child_id")
            key = str(child_id) if child_id is not None else f"{node.id}:{event.seq}"
            child = nodes.get(key)
            if child is None:
                child = AgentNode(key)
                nodes[key] = child
            # refused before it is moved: taken from under the lead first, a refused
            # child and all below it would be in the tree nowhere
            if child is root or child is node or _is_ancestor(child, node, parents):
                continue  # a spawn of itself or of an ancestor: not a tree edge
            if any(p is not root and p is not node for p in parents.get(id(child), ())):
                # another sub-agent spawned it first: it stays there, once in the tree
                # (a second place would list it, and count its tokens, twice)
                if event.call_id:
                    by_call.setdefault(event.call_id, child)
                continue
            if node is not root and root in parents.get(id(child), ()):
                root.children.remove(child)  # placed under the lead until now
                parents[id(child)].remove(root)
            agent = event.extra.get("agent_type")
            child.agent_type = str(agent) if agent is not None else child.agent_type
            name = event.extra.get("agent_name")
            child.agent_name = str(name) if name is not None else child.agent_name
            child.description = event.text or child.description
            child.observer = child.observer or event.extra.get("observer") is True
            child.call_id = event.call_id
            if node not in parents.get(id(child), ()):
                attach(node, child)
            if event.call_id:
                by_call[event.call_id] = child
        elif event.kind == "tool_call":
            node.tool_calls += 1
        elif event.kind == "usage" and event.usage is not None:
            node.usage = node.usage + event.usage.plausible()
        elif event.kind == "tool_result" and event.call_id in by_call:
            child = by_call[event.call_id]
            if event.extra.get("launched") is True and not event.is_error:
                launched.add(id(child))
            else:
                child.status = "failed" if event.is_error else "done"
        elif event.kind == "meta" and (ended := event.extra.get("subagent_status")):
            child_id = event.extra.get("child_id")
            child = by_call.get(event.call_id or "") or nodes.get(
                str(child_id) if child_id is not None else ""
            )
            status = "failed" if ended == "failed" else "done"
            if child is not None and child is not root:
                noted[id(child)] = status
            elif child is None and child_id is not None:
                noted_early[str(child_id)] = status  # its spawn is read later
        if event.kind == "turn_end":
            ends_turns.add(node.id)
        retried = event.kind == "error" and event.extra.get("retrying") is True
        # a compaction the app makes once a turn has ended (pi, Kimi Code) starts no
        # new one: the agent is as done as before it
        tidied = event.kind == "compaction" and last_kind.get(node.id) == "turn_end"
        if event.kind not in ("usage", "meta", "subagent") and not (retried or tidied):
            # (bookkeeping an app may write last; a sub-agent read after its lead's
            # whole file is announced after the lead's turn end; an error the app
            # tries again after, as the board, fails no agent)
            last_kind[node.id] = event.kind
    kind = last_kind.get(root.id)
    root.status = (
        "failed"
        if kind == "error"
        else "done"
        if kind in ("turn_end", "assistant")
        else "running"
    )
    for _, node in root.walk():
        if id(node) in noted:
            node.status = noted[id(node)]
        elif node is not root and node.id in noted_early:
            node.status = noted_early[node.id]
        if node is root or node.status != "running":
            continue
        last = last_kind.get(node.id)
        if last == "error":
            node.status = "failed"
        elif last == "turn_end":
            # it ended its turn: its own transcript says it finished, whether or not
            # the call's result is written yet (and whatever its files' times say)
            node.status = "done"
        elif (
            id(node) in launched
            and node.id not in ends_turns
            and root.status != "running"
            and last in _FINAL
        ):
            # an app that writes no turn ends: it answered, and the lead is past it
            node.status = "done"
        elif node.call_id is None and root.status != "running" and last in _FINAL:
            # no call closes it (an app that does not link its sub-agents): it ended
            # on its own answer, and the lead is past it
            node.status = "done"
    return root


def add_unplaced(
    root: AgentNode,
    listed: Callable[[list[str], Container[str]], Iterable[tuple[str, AgentNode]]],
) -> None:
    """Put under their parents the sub-agents the index lists under the agents of this
    tree that the tree did not place (`listed(ids, placed)`: (parent id, its node, read
    from its own events) for each session listed under one of `ids`, those whose id is
    in `placed` need not be read), marked `unplaced`; their own sub-agents too,
    level by level (at most 16: a loop of parents in damaged files ends). Makes `tree`
    show what `list --all` does, where the spawn is on a branch the events leave out."""
    placed = {node.id: node for _, node in root.walk()}
    asked = list(placed)
    for _ in range(16):
        found: list[str] = []
        for parent_id, node in listed(asked, placed):
            parent = placed.get(parent_id)
            if parent is None or node.id in placed:
                continue
            node.unplaced = True
            parent.children.append(node)
            # those its own read placed below it too: not placed again, walked below
            for _, below in node.walk():
                if below.id not in placed:
                    placed[below.id] = below
                    found.append(below.id)
        if not found:
            return
        asked = found


def settle(root: AgentNode, written: datetime | None, now: datetime) -> None:
    """Call each agent still running stopped when the session was last written (`written`,
    its newest dated record, its files' newest change only where none is dated:
    `status.last_recorded`) ENDED_AFTER ago or more: as `watch` does, half an hour of
    silence mid-turn means the app is gone, not at work."""
    latest = max(
        (t for _, node in root.walk() if (t := node.ended) is not None),
        default=None,
    )
    if written is not None and (latest is None or written > latest):
        latest = written
    if latest is None or (now - latest).total_seconds() < ENDED_AFTER:
        return
    for _, node in root.walk():
        if node.status == "running":
            node.status = "stopped"


def _is_ancestor(
    candidate: AgentNode, node: AgentNode, parents: dict[int, list[AgentNode]]
) -> bool:
    """Whether `candidate` already sits above `node`: found by walking up from `node`
    (a few steps), not by searching the whole tree for every spawn."""
    stack, seen = [node], {id(node)}
    while stack:
        for parent in parents.get(id(stack.pop()), ()):
            if parent is candidate:
                return True
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append(parent)
    return False
