"""The sibling sub-agent that spawned a sub-agent file whose `.meta.json` is lost, for its
listing: found in the siblings' heads and tails only, as listing reads any transcript.

A nested sub-agent's file names neither its spawner nor its call; its first user line is
the call's prompt, and the spawner's file holds that call and later its result naming the
child. A spawner waits on its child, so while the child writes, the call sits in the
spawner's tail; a call in the middle of a long spawner is not seen (the lead stays).
What a folder's files hold is kept: a file is read again only when a child written
since the folder was read finds no spawner in what is kept, and then only if it changed
(a spawner's call comes before its child's file: one listed then was already seen).
A spawner writes its call just before its child starts and its result after: a sibling
last written well before the child started holds neither and is not read, so that a
warm listing of the one sub-agent still writing reads the few siblings written lately.
A lead's own calls are not looked up here: its listing says what they asked for
(`types_by_task`), and the index types the sub-agents it started.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from .. import files, folders, freshness
from . import _claude_records as rec

_KEPT = 8  # folders whose files' spawns are kept, for their other files without meta
# how long before a child's first record its spawner may have been last written: the
# call comes moments before, but the app's clock and the file system's may disagree
_SLACK_NS = 3600 * 1_000_000_000


@dataclass(frozen=True, slots=True)
class Spawn:
    """A Task/Agent call a sub-agent made: its prompt, what it asked for, and when."""

    agent: str  # the spawning sub-agent
    task: str
    agent_type: str | None
    description: str | None
    time: datetime | None


@dataclass(slots=True)
class _Folder:
    """What a folder's agent files hold: by file name, its (size, mtime, spawns, agent
    ids its results name); and those spawns by prompt, those results by child."""

    files: dict[str, tuple[int, int, tuple[Spawn, ...], frozenset[str]]] = field(
        default_factory=dict
    )
    by_task: dict[str, list[Spawn]] = field(default_factory=dict)
    by_result: dict[str, list[str]] = field(default_factory=dict)
    oldest: int = 0  # files last written before this (ns) were not read (0: all were)


_kept: dict[str, _Folder] = {}


def spawner(
    path: str, agent: str, task: str | None, since: datetime | None
) -> Spawn | None:
    """The one sibling's call that started `agent` (whose file is `path`): its result
    names `agent`, else its prompt is `task` and it came at or before `since`. None where
    no sibling, or more than one, has such a call (the lead may have made it).

    The parse that asks depends on the spawner's file alone (`freshness.depending`),
    kept or read: the siblings grow at every turn, and the folder's are kept for many
    parses."""
    with freshness.not_depending():
        found = _spawner(path, agent, task, since)
    if found is not None:
        freshness.note_depended(os.path.join(os.path.dirname(path), _file(found.agent)))
    return found


def _file(agent: str) -> str:
    return f"agent-{agent}.jsonl"


def _spawner(
    path: str, agent: str, task: str | None, since: datetime | None
) -> Spawn | None:
    folder, own = os.path.split(path)
    oldest = read_from = _oldest(since)
    kept = _kept.get(folder)
    if kept is not None and kept.oldest <= oldest:
        found = _match(kept, own, agent, task, since, oldest)
        if found is None and not _written_since(kept, own, path):
            return None  # else each of a folder's many lead-spawned files lists it
        if found is not None:
            # its spawner's file as it was kept (a long-lived process)
            spawning = _file(found.agent)
            if not _written_since(kept, spawning, os.path.join(folder, spawning)):
                return found
        read_from = kept.oldest
    elif kept is not None:
        read_from = 0  # an older child: the whole folder, so it is listed twice at most
    elif len(_kept) >= _KEPT:
        _kept.clear()
    kept = _kept[folder] = _read(folder, kept, read_from)
    return _match(kept, own, agent, task, since, oldest)  # what it alone would see


def types_by_task(blocks: Iterable[tuple[bytes, bool]], path: str) -> dict[str, str]:
    """What a lead's calls in `blocks` (its head's and tail's data, each whether its first
    piece is a whole line) name: the type asked for, by `task_key` of the prompt, for each
    prompt one call alone asks with a type. A sub-agent whose own files name no type takes
    it from there (`spawn_key`), through the index: a lead that grows is read again, its
    many sub-agents not. A call in the middle of a long lead is not seen."""
    spawns, _ = _spawns_in(_marked(blocks, _CALLS), "", path)
    asked: dict[str, list[str | None]] = {}
    for spawn in spawns:
        asked.setdefault(spawn.task, []).append(spawn.agent_type)
    return {
        task_key(task): types[0]
        for task, types in asked.items()
        if len(types) == 1 and types[0] is not None
    }


def task_key(task: str) -> str:
    """A task's text as a short key, the same in every process."""
    return format(rec.task_key(task), "016x")


def _oldest(since: datetime | None) -> int:
    """The last write (ns) before which a sibling cannot hold a call made at `since`."""
    if since is None:
        return 0
    stamp = min(int(since.timestamp() * 1_000_000_000), time.time_ns())  # odd clocks
    return max(0, stamp - _SLACK_NS)


def _written_since(kept: _Folder, own: str, path: str) -> bool:
    """Whether the file `own` was not listed when `kept` was read, or has changed since."""
    known = kept.files.get(own)
    if known is None:
        return True
    try:
        stat = os.stat(path)
    except OSError:
        return False
    return known[:2] != (stat.st_size, stat.st_mtime_ns)


def _match(
    kept: _Folder,
    own: str,
    agent: str,
    task: str | None,
    since: datetime | None,
    oldest: int,
) -> Spawn | None:
    """The spawner among files last written at or after `oldest`, whatever else is
    kept: which siblings a child can see does not depend on the order of listing."""

    def seen(name: str) -> bool:
        return name != own and kept.files[name][1] >= oldest

    named = [name for name in kept.by_result.get(agent, ()) if seen(name)]
    if named:
        if len(set(named)) > 1:
            return None
        spawner = named[0][len("agent-") : -len(".jsonl")]
        calls = kept.by_task.get(task, ()) if task else ()
        return next(
            (spawn for spawn in calls if spawn.agent == spawner),
            Spawn(spawner, task or "", None, None, None),
        )
    asked = [
        spawn
        for spawn in (kept.by_task.get(task, ()) if task else ())
        if seen(_file(spawn.agent))
        and (since is None or spawn.time is None or spawn.time <= since)
    ]
    return asked[0] if len({spawn.agent for spawn in asked}) == 1 else None


def _read(folder: str, old: _Folder | None, oldest: int) -> _Folder:
    """The folder's agent files last written at or after `oldest`, each read again only
    if its size or mtime changed."""
    kept = _Folder(oldest=oldest)
    for entry in folders.listing(folder):
        name = entry.name
        if not (name.startswith("agent-") and name.endswith(".jsonl")):
            continue
        try:
            stat = entry.stat()
        except OSError:
            continue
        if stat.st_mtime_ns < oldest:
            continue
        known = old.files.get(name) if old is not None else None
        if known is None or known[:2] != (stat.st_size, stat.st_mtime_ns):
            agent = name[len("agent-") : -len(".jsonl")]
            spawns, results = _scan(entry.path, agent, stat.st_size)
            known = (stat.st_size, stat.st_mtime_ns, spawns, results)
        kept.files[name] = known
        for spawn in known[2]:
            kept.by_task.setdefault(spawn.task, []).append(spawn)
        for child in known[3]:
            kept.by_result.setdefault(child, []).append(name)
    return kept


_CALLS = (b'"Agent"', b'"Task"')
_MARKS = (*_CALLS, b'"toolUseResult"')


def _lines(path: str, size: int) -> Iterator[tuple[bytes, bool]]:
    """The head's and tail's lines that may hold a spawn or its result."""
    blocks: list[tuple[bytes, bool]] = []  # (data, whether its first piece is whole)
    if size > files.TAIL_BYTES:  # the tail is not the whole file: its head too
        blocks.extend((line.data + b"\n", True) for line in files.head_lines(path))
    start, data = files.tail_bytes(path)
    blocks.append((data, start == 0))
    return _marked(blocks)


def _marked(
    blocks: Iterable[tuple[bytes, bool]], marks: tuple[bytes, ...] = _MARKS
) -> Iterator[tuple[bytes, bool]]:
    """The lines of `blocks` that hold one of `marks` (a spawn or its result): found by
    a byte search of each block, so the other lines are never split out nor parsed."""
    for data, whole in blocks:
        for mark in marks:  # a line with two marks is given twice: `_scan` keeps one
            hit = data.find(mark)
            while hit >= 0:
                begin = data.rfind(b"\n", 0, hit) + 1
                end = data.find(b"\n", hit)
                stop = end if end >= 0 else len(data)
                if begin > 0 or whole:  # not the tail's cut first piece
                    yield data[begin:stop], end >= 0
                hit = data.find(mark, stop)


def _scan(path: str, agent: str, size: int) -> tuple[tuple[Spawn, ...], frozenset[str]]:
    """The spawns and the agent ids spawn results name in a file's head and tail."""
    try:
        return _spawns_in(_lines(path, size), agent, path)
    except OSError:
        return (), frozenset()  # gone or unreadable: it names no child


def _spawns_in(
    lines: Iterator[tuple[bytes, bool]], agent: str, path: str
) -> tuple[tuple[Spawn, ...], frozenset[str]]:
    """The spawns `agent` made and the agent ids spawn results name, in `lines`."""
    spawns: dict[str, Spawn] = {}  # by call id: head and tail may share lines
    results: set[str] = set()
    for data, complete in lines:
        record = rec.load(data, complete, 0, None, path)
        if record is None:
            continue
        outcome = record.get("toolUseResult")
        if isinstance(outcome, dict) and (child := rec.string(outcome.get("agentId"))):
            results.add(child)
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if record.get("type") != "assistant" or not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            call, task = rec.spawn(block)
            spec = block.get("input")
            if call is None or not task or not isinstance(spec, dict):
                continue
            spawns[call] = Spawn(
                agent,
                task,
                rec.string(spec.get("subagent_type")),
                rec.string(spec.get("description")),
                rec.moment(record.get("timestamp")),
            )
    return tuple(spawns.values()), frozenset(results)
