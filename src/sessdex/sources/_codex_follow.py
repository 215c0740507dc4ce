"""Following a Codex thread live: its rollout and each sub-agent's, every file on its own.

Each file gets one `_Reader` (the same translator `read` uses) that is fed the appended
lines one by one and keeps its state between them: messages written twice are still
emitted once, token totals still count from the previous line. A sub-agent's rollout is
found by the thread id its spawn names (or the state db listed), as `read` finds it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import replace
from pathlib import Path

from .. import files, folders
from ..diagnostics import Diagnostics
from ..model import Event, Session
from ._codex_read import _Finder, _home, _Reader, _session_rollout, unread_rollout
from .base import FollowFile, LineReader

# turn_end reasons that mean the user stopped the turn
_INTERRUPTED = frozenset({"interrupted", "aborted"})


def _mtime(folder: Path) -> int:
    try:
        return folder.stat().st_mtime_ns
    except OSError:
        return -1


class _Days:
    """The date folders (`sessions/YYYY/MM/DD`) from the rollout's own day on: a session
    that runs past midnight has its new sub-agents' rollouts written in the new day's
    folder. Each year and month folder is listed again only when its mtime moved (a new
    folder below it), so a poll costs a few stats, never a walk of the whole tree."""

    def __init__(self, day: Path) -> None:
        self.day = day
        self.own = day.parts[-3:]
        root = day.parent.parent.parent
        dated = len(self.own) == 3 and all(part.isdigit() for part in self.own)
        self.root = root if dated and root.name == "sessions" else None
        self._listed: dict[Path, tuple[int, list[Path]]] = {}

    def folders(self) -> list[Path]:
        """The own day's folder, then each later one."""
        if self.root is None:
            return [self.day]
        level = [self.root]
        for depth in range(3):
            level = [found for folder in level for found in self._later(folder, depth)]
        return level or [self.day]

    def _later(self, folder: Path, depth: int) -> list[Path]:
        stamp = _mtime(folder)
        cached = self._listed.get(folder)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        assert self.root is not None
        above = folder.parts[len(self.root.parts) :]
        later = [
            Path(entry.path)
            for entry in folders.entries(folder, nested=True)
            if entry.is_dir() and (*above, entry.name) >= self.own[: depth + 1]
        ]
        self._listed[folder] = (stamp, later)
        return later


class Follow:
    """`codex.follow(session, diagnostics)`: see base.SessionFollow."""

    def __init__(self, session: Session, diagnostics: Diagnostics) -> None:
        self.session = session
        self.diagnostics = diagnostics
        # a pipe or a folder in the rollout's place is followed as one, to be named
        self.path = _session_rollout(session) or unread_rollout(session)
        home = _home(session, self.path) if self.path is not None else None
        self.finder = _Finder(home, session.extra.get("children"))
        self.found: dict[str, Path] = {}
        # child -> the day folders' mtimes when it was not found
        self.missing: dict[str, tuple[int, ...]] = {}
        self.days = _Days(self.path.parent) if self.path is not None else None

    def files(self, children: Collection[str]) -> list[FollowFile]:
        if self.path is None or self.path.name.endswith(".zst"):
            return []  # a compressed rollout is archived: it no longer grows
        result = [FollowFile(self.path)]
        days: list[Path] | None = None
        stamp: tuple[int, ...] = ()
        for child in sorted({*children, *self.finder.known}):
            path = self.found.get(child)
            if path is None:
                if days is None:  # only while a child is missing: a few stats
                    assert self.days is not None
                    days = self.days.folders()
                    stamp = tuple(map(_mtime, days))
                if self.missing.get(child) == stamp:
                    continue  # looked for already, and no file came since
                path = self.finder.find(child, *days)
                if path is None or path.name.endswith(".zst"):
                    self.missing[child] = stamp
                    continue
                self.found[child] = path
            result.append(FollowFile(path, agent_id=child))
        return result

    def reader(self, file: FollowFile, offset: int) -> LineReader:
        reader = _Reader(
            file.path,
            self.session.id,
            file.agent_id,
            self.diagnostics,
            self.finder,
            offset=offset,
        )
        if offset:
            reader._load_meta()
        name = str(file.path)

        def read(line: files.Line) -> Iterator[Event]:
            record = files.parse_json(line, self.diagnostics, name)
            if record is None:
                return
            for event in reader._record(line, record):
                if (
                    event.kind == "turn_end"
                    and event.extra.get("reason") in _INTERRUPTED
                ):
                    event = replace(event, extra={**event.extra, "interrupted": True})
                yield event

        return read
