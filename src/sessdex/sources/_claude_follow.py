"""Following a Claude Code session live: the transcript and each sub-agent file on its own.

Each file gets a `Stream` (the translator `read` uses) fed the appended lines one by one, so
its state carries over: a response written as several lines is billed once, a compaction
still waits for its summary. The streams share one `Context` (responses billed, sub-agents
announced). Sub-agent files are found as `read` finds them: `<session>/subagents/` (and a
Workflow run's `subagents/workflows/<run>/`) with the
`.meta.json` that names the spawning call (2.1), or `agent-<id>.jsonl` beside the transcript
naming the session (2.0). A live read does no survey: no rewind pruning. The user's
interruption ("[Request interrupted by user…]") is marked `extra["interrupted"]`.

A spawn read before its child's file appears names no child; when the file comes, naming
that call, the child's first events are preceded by the spawn again, its `child_id` now
known (the views label the child by it, as `show` does, and print that spawn once). A
child whose meta file is lost (a nested sub-agent's) is linked the same way to the
earliest spawn still without a child whose prompt is its first user line.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from .. import files, folders
from ..diagnostics import Diagnostics
from ..model import Event, Session
from . import _claude_records as rec
from ._claude_read import _agent_file, _mentions, _survey, workflow_agents
from ._claude_stream import Child, Context, Stream
from .base import FollowFile, LineReader

_INTERRUPTED = "[Request interrupted by user"


def _mtime(folder: Path) -> int:
    try:
        return folder.stat().st_mtime_ns
    except OSError:
        return -1


@dataclass(frozen=True, slots=True)
class _Reader:
    """A file's line reader, and what its stream settles at a quiet end of the file."""

    read: LineReader
    stream: Stream

    def __call__(self, line: files.Line) -> Iterable[Event]:
        return self.read(line)

    def settle(self, quiet: bool) -> Iterator[Event]:
        return self.stream.settle(quiet)


class Follow:
    """`claude.follow(session, diagnostics)`: see base.SessionFollow."""

    def __init__(self, session: Session, diagnostics: Diagnostics) -> None:
        self.session = session
        self.path = Path(session.path) if session.path else None
        # a sub-agent's own file followed as a session: its side-chain lines are the lead's
        self.own = self.path is not None and _agent_file(self.path.name) is not None
        self.context = Context(
            session.id, diagnostics, False, side_chain_is_lead=self.own
        )
        self.known: dict[Path, FollowFile] = {}
        self.strangers: set[Path] = set()  # agent files beside it of other sessions
        self.stamps: tuple[int, ...] | None = (
            None  # the folders' mtimes when last listed
        )
        self.listed: list[FollowFile] | None = None
        # spawns read before their child's file appeared, by call; and the children whose
        # spawn is to be said again, naming them, before their first events
        self.unlinked: dict[str, Event] = {}
        self.linking: dict[str, str] = {}
        # the prompts (`task_key`) of spawn calls read, until their spawn is said; and of
        # the unlinked ones: a child no meta file links opens with one of them
        self.asking: dict[str, int] = {}
        self.asked: dict[str, int] = {}
        self.surveyed = False  # the main file's first reader was given its survey

    def files(self, children: Collection[str]) -> list[FollowFile]:
        if self.path is None or not self.path.name.endswith(".jsonl"):
            return []
        folder = self.path.with_suffix("") / "subagents"
        runs = folder / "workflows"
        stamps = (
            _mtime(folder),
            _mtime(self.path.parent),
            _mtime(runs),
            *(_mtime(Path(run.path)) for run in folders.entries(runs) if run.is_dir()),
        )
        if stamps == self.stamps and self.listed is not None:
            return self.listed  # no file came or went: nothing to list again
        self.stamps = stamps
        self.listed = self._list()
        return self.listed

    def _list(self) -> list[FollowFile]:
        assert self.path is not None
        found = [FollowFile(self.path)]
        folder = self.path.with_suffix("") / "subagents"
        for entry in folders.entries(folder):
            agent = _agent_file(entry.name)
            if agent is not None:
                found.append(self._child(Path(entry.path), agent, folder))
        for agent, path, run in workflow_agents(folder):  # a Workflow run's agents
            found.append(self._child(path, agent, run))
        if self.own and self.path.parent.name == "subagents":
            # a sub-agent's own children are beside it, naming it as their parent
            found.extend(self._nested())
            return found
        for entry in folders.entries(self.path.parent):
            agent = _agent_file(entry.name)
            path = Path(entry.path)
            if agent is None or path in self.strangers:
                continue
            if path in self.known or _mentions(path, self.session.id):
                found.append(self._child(path, agent, None))
            elif entry.stat().st_size > 0:  # an empty file may still name us later
                self.strangers.add(path)
        return found

    def _nested(self) -> list[FollowFile]:
        assert self.path is not None
        folder = self.path.parent
        found = []
        for entry in folders.entries(folder):
            agent = _agent_file(entry.name)
            if agent is None or agent == self.session.id:
                continue
            path = Path(entry.path)
            if path in self.strangers:
                continue
            if path not in self.known:
                meta = files.read_json_file(folder / f"agent-{agent}.meta.json")
                if not isinstance(meta, dict):
                    continue  # its meta file may come next
                if meta.get("parentAgentId") != self.session.id:
                    self.strangers.add(path)  # a sibling, or a child of another agent
                    continue
            found.append(self._child(path, agent, folder, nested=True))
        return found

    def _child(
        self, path: Path, agent: str, folder: Path | None, nested: bool = False
    ) -> FollowFile:
        known = self.known.get(path)
        if known is not None and (known.call_id or folder is None):
            return known
        meta: object = None
        if folder is not None:
            meta = files.read_json_file(folder / f"agent-{agent}.meta.json")
        info = meta if isinstance(meta, dict) else {}
        call = rec.string(info.get("toolUseId"))
        file = FollowFile(
            path,
            agent_id=agent,
            call_id=call,
            agent_type=rec.string(info.get("agentType")),
            description=rec.string(info.get("description")),
            observer=info.get("isObserver") is True,
        )
        self.known[path] = file
        self.context.children[agent] = Child(
            agent,
            path,
            file.agent_type,
            file.description,
            call,
            # the session followed is a sub-agent: its children are its lead's
            None if nested else rec.string(info.get("parentAgentId")),
            observer=file.observer,
        )
        if call is not None:
            # its spawning call announces it (or did already, before its file was known)
            self.context.by_call[call] = agent
            self.context.announced.add(agent)
            if call in self.unlinked:
                self.linking[agent] = call
        return file

    def reader(self, file: FollowFile, offset: int) -> LineReader:
        agent = file.agent_id
        child = self.context.children.get(agent) if agent is not None else None
        survey = None
        if file.path == self.path and not self.surveyed:
            # the history the first read draws: its rewound branches folded, its inline
            # side chains named by their ids, as `read` finds them (lines written later
            # are drawn as they come: nothing drawn is taken back). Only where that read
            # takes the whole file: a survey reads all of it (a 1.5 GB lead's took a
            # minute before the first line); read from its end, the history is drawn
            # as `show --tail` draws it, with no survey
            self.surveyed = True
            if offset == 0:
                survey = _survey(
                    file.path, keep_long_lines=False, side_chain_is_lead=self.own
                )
                for call, inline in survey.inline_children.items():  # 1.0's side chains
                    self.context.children.setdefault(inline, Child(inline, None, call_id=call))  # fmt: skip
                    self.context.by_call.setdefault(call, inline)
        stream = Stream(
            self.context, file.path, agent, survey=survey, child=child, offset=offset
        )
        diagnostics = self.context.diagnostics
        name = str(file.path)
        # a sub-agent followed as a session of its own is the lead of what is shown
        own = self.session.id if file.path == self.path else None
        # a child nothing links yet: its first user line may be an unlinked call's prompt
        opening = child if child is not None and child.call_id is None else None

        def read(line: files.Line) -> Iterator[Event]:
            nonlocal opening
            record = rec.load(line.data, line.complete, line.number, diagnostics, name)
            if record is None:
                return
            if opening is not None and record.get("type") == "user":
                self._link_by_task(opening, rec.message_text(record))
                opening = None
            for event in stream.feed(line, record):
                if event.kind == "user" and (event.text or "").startswith(_INTERRUPTED):
                    event = replace(event, extra={**event.extra, "interrupted": True})
                if own is not None and event.agent_id == own:
                    event = replace(event, agent_id=None)
                if event.kind == "tool_call" and event.tool in rec.SPAWN_TOOLS:
                    spec = event.extra.get("input")
                    task = spec.get("prompt") if isinstance(spec, dict) else None
                    if isinstance(task, str) and event.call_id is not None:
                        self.asking[event.call_id] = rec.task_key(task)
                if event.kind == "subagent" and event.call_id is not None:
                    asked = self.asking.pop(event.call_id, None)
                    if event.extra.get("child_id") is None:
                        self.unlinked[event.call_id] = event
                        if asked is not None:
                            self.asked[event.call_id] = asked
                    else:
                        self.unlinked.pop(event.call_id, None)
                        self.asked.pop(event.call_id, None)
                call = self.linking.pop(agent, None) if agent is not None else None
                spawn = self.unlinked.pop(call, None) if call is not None else None
                if call is not None:
                    self.asked.pop(call, None)
                if spawn is not None:  # its spawn, now naming it
                    yield replace(
                        spawn,
                        time=event.time or spawn.time,
                        extra={**spawn.extra, "child_id": agent},
                    )
                yield event

        return _Reader(read, stream)

    def _link_by_task(self, child: Child, task: str | None) -> None:
        """Link a child no meta file names to the earliest spawn still unlinked whose
        prompt it opens with (a nested sub-agent whose meta is lost: its spawner's call
        is read, and said without a child, before its file appears)."""
        if not task:
            return
        wanted, agent = rec.task_key(task), child.agent_id
        for call, spawn in self.unlinked.items():
            if self.asked.get(call) == wanted and spawn.agent_id != agent:
                child.call_id, child.parent_agent = call, spawn.agent_id
                self.context.by_call[call] = agent
                self.context.announced.add(agent)
                self.linking[agent] = call
                return
