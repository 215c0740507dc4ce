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

from .. import files
from ..diagnostics import Diagnostics
from ..model import Event, Session
from ._codex_read import _Finder, _home, _Reader, _session_rollout
from .base import FollowFile, LineReader

# turn_end reasons that mean the user stopped the turn
_INTERRUPTED = frozenset({"interrupted", "aborted"})


def _mtime(folder: Path) -> int:
    try:
        return folder.stat().st_mtime_ns
    except OSError:
        return -1


class Follow:
    """`codex.follow(session, diagnostics)`: see base.SessionFollow."""

    def __init__(self, session: Session, diagnostics: Diagnostics) -> None:
        self.session = session
        self.diagnostics = diagnostics
        self.path = _session_rollout(session)
        home = _home(session, self.path) if self.path is not None else None
        self.finder = _Finder(home, session.extra.get("children"))
        self.found: dict[str, Path] = {}
        self.missing: dict[str, int] = {}  # child -> the folder's mtime when not found

    def files(self, children: Collection[str]) -> list[FollowFile]:
        if self.path is None or self.path.name.endswith(".zst"):
            return []  # a compressed rollout is archived: it no longer grows
        result = [FollowFile(self.path)]
        stamp = _mtime(self.path.parent)
        for child in sorted({*children, *self.finder.known}):
            path = self.found.get(child)
            if path is None:
                if self.missing.get(child) == stamp:
                    continue  # looked for already, and no file came since
                path = self.finder.find(child, self.path.parent)
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
