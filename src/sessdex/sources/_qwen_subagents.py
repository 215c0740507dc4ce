"""Qwen Code's sub-agent transcripts (0.21+): `projects/<project>/subagents/<session>/
agent-<id>.jsonl` beside an `agent-<id>.meta.json`, each read into its parent's events.

Which spawn a transcript belongs to (the meta's `toolUseId`, else the call id its name
ends in, else a guess by type and time), and which telemetry runs of the parent's chat it
stands for, so that each model call is billed once (see qwen.py's `_Reader.telemetry`).
A spawn with no transcript is not warned of: releases before 0.21 wrote none, and the
chat does not say which release ran it; its calls come from the telemetry instead.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TypeAlias

from .. import files, folders
from ..diagnostics import Diagnostics
from ..model import Usage
from ._values import as_str, iso_time

SUBAGENTS = "subagents"
META_LIMIT = 1024 * 1024
CHILD_DEPTH = 8  # nested sub-agents read, at most
# A telemetry line stands for a transcript's run when it falls this close to the
# transcript's own times (its first record is written before the run's first call).
SLACK = timedelta(seconds=5)


def agent_of(name: str) -> str | None:
    """The agent id in a transcript's name, `agent-<id>.jsonl` (not the `.jsonl.stream`
    Qwen writes beside it while the agent runs, nor the `.meta.json`)."""
    if name.startswith("agent-") and name.endswith(".jsonl"):
        return name[len("agent-") : -len(".jsonl")] or None
    return None


def child_of(path: Path) -> str | None:
    """The sub-agent whose own transcript `path` is (`subagents/<parent>/agent-<id>.jsonl`)."""
    return agent_of(path.name) if path.parent.parent.name == SUBAGENTS else None


def project_of(path: Path) -> Path:
    chats = path.parent.parent if path.parent.name == "archive" else path.parent
    return chats.parent


def sanitized(value: str) -> str:
    """An id as Qwen puts it in a file name: all but letters, digits, `_` and `-` as `_`."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", value)


def meta_of(
    folder: Path, agent: str, diagnostics: Diagnostics | None = None
) -> dict[str, object]:
    """The `agent-<id>.meta.json` beside a transcript; empty when missing or broken."""
    value = files.read_json_file(
        folder / f"agent-{agent}.meta.json", META_LIMIT, diagnostics=diagnostics
    )
    return value if isinstance(value, dict) else {}


def agent_type(meta: dict[str, object]) -> str | None:
    return as_str(meta.get("agentType")) or as_str(meta.get("subagentName"))


def parent_of(meta: dict[str, object], folder: str) -> str:
    """The agent that spawned a sub-agent: its `parentAgentId` when nested, else the
    session its folder is named after (the meta's own spelling when the name is it)."""
    named = as_str(meta.get("parentSessionId"))
    session = named if named is not None and sanitized(named) == folder else folder
    return as_str(meta.get("parentAgentId")) or session


@dataclass(slots=True, eq=False)
class Child:
    """One sub-agent transcript beside the session, and what reading it told."""

    id: str
    path: Path
    call_id: str | None  # the meta's toolUseId: the call that spawned it
    # the meta's parentAgentId: set when a sub-agent spawned it
    parent_agent: str | None
    agent_type: str | None
    description: str | None
    model: str | None
    names: set[str]  # what telemetry may call it: its type, config name, agentName
    # a background run's status, as its meta keeps it: "running", "completed",
    # "failed", "cancelled" (None for a run in the foreground: its answer says it)
    status: str | None = None
    first: datetime | None = None
    last: datetime | None = None
    probed: bool = False
    merged: bool = False
    # the calls its transcript billed, and (read last) those its telemetry billed first
    billed: Counter[UsageKey] = field(default_factory=Counter)
    skip: Counter[UsageKey] = field(default_factory=Counter)

    def saw(self, time: datetime | None, name: str | None) -> None:
        if name:
            self.names.add(name)
            self.agent_type = self.agent_type or name
        if time is not None:
            self.first = time if self.first is None else min(self.first, time)
            self.last = time if self.last is None else max(self.last, time)

    def probe(self) -> None:
        """Its times and agent name from its ends, for a child no meta links to a call."""
        if self.probed:
            return
        self.probed = True
        try:
            lines = files.head_lines(self.path, 8) + files.tail_lines(
                self.path, 64 * 1024
            )
        except OSError:
            return
        for line in lines:
            if b'"timestamp"' in line.data and (record := files.parse_json(line)):
                self.saw(
                    iso_time(record.get("timestamp")), as_str(record.get("agentName"))
                )

    def during(self, time: datetime | None) -> bool:
        return (
            time is not None
            and self.first is not None
            and self.last is not None
            and self.first - SLACK <= time <= self.last + SLACK
        )

    def called(self, name: str | None) -> bool:
        return name is None or name.lower() in {n.lower() for n in self.names}


class Family:
    """The sub-agent transcripts of one session, shared by the readers of one read: which
    spawn each belongs to, which were read, and which telemetry runs they stand for."""

    def __init__(self, children: dict[str, Child], full: bool) -> None:
        self.children = children
        self.full = full
        self.runs: dict[str, Child] = {}  # telemetry run id -> the transcript read
        # telemetry calls billed for runs no transcript read stood for: (name, time, call)
        self.billed: list[tuple[str, datetime | None, UsageKey]] = []

    @classmethod
    def beside(
        cls, folder: Path, owner: str | None, diagnostics: Diagnostics, *, full: bool
    ) -> Family | None:
        children: dict[str, Child] = {}
        for entry in folders.entries(folder):
            agent = agent_of(entry.name)
            if agent is None or agent == owner or not entry.is_file():
                continue
            meta = meta_of(folder, agent, diagnostics)
            kind = agent_type(meta)
            children[agent] = Child(
                agent,
                Path(entry.path),
                as_str(meta.get("toolUseId")),
                as_str(meta.get("parentAgentId")),
                kind,
                as_str(meta.get("description")),
                as_str(meta.get("model")),
                {n for n in (kind, as_str(meta.get("subagentName"))) if n},
                # what a foreground run's answer already says is not repeated
                None
                if meta.get("isBackgrounded") is False
                else as_str(meta.get("status")),
            )
        return cls(children, full) if children else None

    def link(
        self,
        call_id: str | None,
        agent_type: str | None,
        spawner: str | None,
        time: datetime | None,
    ) -> Child | None:
        """The transcript a spawn started: the one whose meta names its call, else whose
        file name ends in the call id (Qwen names a run `<type>-<call id>`), else, as a
        guess for transcripts whose meta names no call, the oldest unread one of the
        spawn's type that did not start before it."""
        unread = [
            c
            for c in self.children.values()
            if not c.merged and c.parent_agent in (None, spawner)
        ]
        found = None
        if call_id:
            suffix = "-" + sanitized(call_id)
            found = next((c for c in unread if c.call_id == call_id), None) or next(
                (c for c in unread if c.call_id is None and c.id.endswith(suffix)), None
            )
        if found is None:
            guesses = []
            for child in (c for c in unread if c.call_id is None):
                child.probe()
                early = time and child.first and child.first < time - SLACK
                if child.called(agent_type) and not early:
                    guesses.append(child)
            found = min(guesses, key=oldest, default=None)
        if found is not None:
            found.merged = True
        return found

    def claim(self, run: str, name: str | None, time: datetime | None) -> Child | None:
        """The transcript read that a sub-agent run the telemetry names stands for: the
        same id (0.24), else the same name within the transcript's times (a release may
        name the run by the engine's own id, not the transcript's)."""
        if run in self.runs:
            return self.runs[run]
        name = name or run.rpartition("-")[0] or None
        for child in self.children.values():
            if child.merged and (
                child.id == run or (child.called(name) and child.during(time))
            ):
                self.runs[run] = child
                return child
        return None

    def orphans(self, owner: str | None) -> list[Child]:
        """Transcripts no spawn claimed, oldest first: for a session, all that are left;
        for a sub-agent read on its own, those it spawned."""
        left = [
            c
            for c in self.children.values()
            if not c.merged and (owner is None or c.parent_agent == owner)
        ]
        for child in left:
            child.probe()
        return sorted(left, key=oldest)

    def billed_before(self, child: Child) -> Counter[UsageKey]:
        """The calls telemetry read before an orphan transcript billed for its run."""
        ours = [b for b in self.billed if child.called(b[0]) and child.during(b[1])]
        self.billed = [b for b in self.billed if b not in ours]
        return Counter(key for _name, _time, key in ours)


UsageKey: TypeAlias = tuple[int, int, int, int]


def usage_key(usage: Usage) -> UsageKey:
    """One model call's figures, the same in its transcript's usageMetadata and its
    telemetry line (Qwen fills both from the response's usage)."""
    return (
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_tokens,
        usage.reasoning_tokens,
    )


def oldest(child: Child) -> tuple[bool, float]:
    return (child.first is None, child.first.timestamp() if child.first else 0.0)
