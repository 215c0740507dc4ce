"""Following a gptme conversation live: its `conversation.jsonl` and each sub-agent's, every
file on its own.

A lead waits on its sub-agent without writing a line (gptme writes its `subagent_wait` once
it has returned), so a watch that read the lead's file again only when that changed would
show nothing of the sub-agent until then. Here each file gets a reader (the translator
`read` uses, `gptme.line_events`) fed the lines appended to it, its pending calls kept
between them. A sub-agent's conversation is followed once a spawn read names it and its
registry entry names the spawning agent as its lead, or it has none (gptme before 0.35:
the spawn's call alone says whose it is) (as `read` reads it in, at most
`_DEPTH` deep); a spawn read before the sub-agent's conversation began is looked for again
at each listing, and said again, naming it, before the sub-agent's first events. One whose
registry entry names an agent followed here, once that agent's file was read without a
spawn naming it (the answer that holds the call not written yet, or cut), is followed too,
announced by its entry before its first events, as `read` announces it after its lead's.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Collection, Iterator
from dataclasses import replace
from pathlib import Path

from .. import files, folders
from ..diagnostics import Diagnostics
from ..model import Event, Session
from ._values import Emitter
from .base import FollowFile, LineReader
from .gptme import (
    _DEPTH,
    CONVERSATION,
    META,
    _copy_of,
    _lead_of,
    _Spawns,
    _subagent_meta,
    announced,
    line_events,
)

# how long after a spawn without its conversation the logs folder is listed again for it
# at each look; later, only once a folder was added there
_LOOK_FOR = 600.0


class Follow:
    """`gptme.follow(session, diagnostics)`: see base.SessionFollow."""

    def __init__(self, session: Session, diagnostics: Diagnostics) -> None:
        self.session = session
        self.diagnostics = diagnostics
        self.path = Path(session.path) if session.path else None
        self.logs = self.path.parent.parent if self.path is not None else None
        self.event = Emitter(session.id)  # one numbering for every file's events
        # each sub-agent followed: the spawn that named it; how deep it is
        self.spawns: dict[str, Event] = {}
        self.depth: dict[str, int] = {session.id: 0}
        # spawns read before their sub-agent's conversation was found, by call and agent
        # name, with the agent that made them; the spawns to say again, naming their child
        self.unlinked: dict[tuple[str | None, str], tuple[Event, str, float]] = {}
        self.linking: dict[str, Event] = {}
        self.logs_stamp = -1  # the logs folder's mtime when last looked at
        # the agents whose file was read: a sub-agent naming one of them as its lead that
        # no spawn read named then has none in what it wrote
        self.read_agents: set[str] = set()
        # each sub-agent folder in the logs folder: the lead its registry entry names, ""
        # for none, None while a new folder's entry may still be written; when found
        self.entries: dict[str, tuple[str | None, float]] = {}

    def files(self, children: Collection[str]) -> list[FollowFile]:
        if self.path is None or self.logs is None:
            return []
        stamp = _mtime(self.logs)
        for key, (spawn, spawner, since) in list(self.unlinked.items()):
            agent = spawn.extra.get("agent_name")
            if not isinstance(agent, str):
                continue
            # the logs folder (thousands of conversations, maybe) is listed again for it
            # for a while after the spawn was read, then only once a folder is added
            if time.monotonic() - since > _LOOK_FOR and stamp == self.logs_stamp:
                continue
            child = _Spawns(self.logs, spawner, read_in=False)._child(agent, spawn.time)
            if child is not None and self._take(child, spawn, spawner, called=True):
                del self.unlinked[key]
                self.linking[child] = replace(
                    spawn, extra={**spawn.extra, "child_id": child}
                )
        self._orphans(stamp)
        self.logs_stamp = stamp
        result = [FollowFile(self.path)]
        for child, spawn in self.spawns.items():
            path = self.logs / child / CONVERSATION
            if not folders.is_file(path):
                continue  # registered, its conversation not begun yet
            kind = spawn.extra.get("agent_type")
            result.append(
                FollowFile(
                    path,
                    agent_id=child,
                    call_id=spawn.call_id,
                    agent_type=kind if isinstance(kind, str) else "subagent",
                    description=spawn.text,
                )
            )
        return result

    def _orphans(self, stamp: int) -> None:
        """Follow each sub-agent whose entry names an agent followed and read here, that no
        spawn read named (see the module's docstring); the logs folder is listed again
        only once a folder was added there."""
        assert self.logs is not None
        now = time.monotonic()
        if stamp != self.logs_stamp:
            first = self.logs_stamp == -1
            for entry in folders.listing(self.logs):
                name = entry.name
                if name.startswith("subagent-") and name not in self.entries:
                    # one there when following began has its entry written, or none
                    lead = (self._lead(name) or "") if first else None
                    self.entries[name] = (lead, now)
        for name, (lead, since) in list(self.entries.items()):
            if lead is None:  # a new folder: its entry is looked for a while
                lead = self._lead(name)
                if lead is None and now - since <= _LOOK_FOR:
                    continue
                self.entries[name] = (lead or "", since)
            if not lead or lead not in self.read_agents or name in self.depth:
                continue
            path = self.logs / name / CONVERSATION
            if not folders.is_file(path):
                continue  # registered, its conversation not begun yet
            spawn = announced(
                self.event,
                name,
                _subagent_meta(self.logs / name / META),
                _Spawns._started(path, None),
            )
            if lead != self.session.id:  # a followed sub-agent's own sub-agent
                spawn = replace(spawn, agent_id=lead)
            if self._take(name, spawn, lead):
                self.linking[name] = spawn

    def _lead(self, name: str) -> str | None:
        assert self.logs is not None
        return _lead_of(self.logs / name)

    def _take(
        self, child: str, spawn: Event, spawner: str, called: bool = False
    ) -> bool:
        """Follow `child`, where its registry entry names `spawner` as its lead, or where
        it has none (gptme before 0.35) and `spawner`'s call started it (`called`), as
        the lead's listing claims it (`gptme._claimed`) and `read` reads it in."""
        if child in self.spawns or child in self.depth or self.logs is None:
            return child in self.spawns
        depth = self.depth.get(spawner, _DEPTH) + 1
        lead = _lead_of(self.logs / child)
        if depth > _DEPTH or (lead != spawner and not (called and lead is None)):
            return False
        self.spawns[child] = spawn
        self.depth[child] = depth
        return True

    def reader(self, file: FollowFile, offset: int) -> LineReader:
        agent = file.agent_id
        own = agent or self.session.id
        assert self.logs is not None
        spawns = _Spawns(self.logs, own, read_in=False)
        pending: deque[tuple[str, str | None]] = deque()
        copy = _copy_of(file.path, search=not offset) if agent is None else None
        name = str(file.path)
        noted = [copy is None or offset > 0]

        def read(line: files.Line) -> Iterator[Event]:
            if not noted[0] and copy is not None:
                noted[0] = True
                yield self.event(
                    "meta",
                    None,
                    text=f"forked from {copy.source}: the responses copied from it "
                    "are billed there",
                    extra={"forked_from": copy.source},
                )
            if agent is not None and agent in self.linking:
                yield self.linking.pop(agent)
            self.read_agents.add(own)
            record = files.parse_json(line, self.diagnostics, name)
            if record is None:
                return
            spawns._names = None  # a spawn of this line looks at the folders anew
            for one in line_events(
                name, line, record, self.event, self.diagnostics, False, pending,
                spawns, copy,
            ):  # fmt: skip
                if agent is not None:
                    one = replace(one, agent_id=agent)
                if one.kind == "subagent":
                    self._spawned(one, own)
                yield one

        return read

    def _spawned(self, spawn: Event, spawner: str) -> None:
        child = spawn.extra.get("child_id")
        agent = spawn.extra.get("agent_name")
        if isinstance(child, str):
            self._take(child, spawn, spawner, called=True)
        elif isinstance(agent, str):
            key = (spawn.call_id, agent)
            if key not in self.unlinked:
                self.unlinked[key] = (spawn, spawner, time.monotonic())


def _mtime(folder: Path) -> int:
    try:
        return folder.stat().st_mtime_ns
    except OSError:
        return -1
