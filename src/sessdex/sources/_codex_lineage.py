"""The older rollout files a reverted Codex thread goes on from.

Codex 0.154+ reverts a thread to an earlier turn by starting a new rollout file,
`rollout-<time>-<thread id>_<rollout id>.jsonl`, whose `session_meta` keeps the thread's id
and names in `history_base` where the kept history ends: `thread_id` (the rollout id of the
file holding it: the thread's first file goes by the thread's id), `end_ordinal_exclusive`
and `end_byte_offset` (the same cut, as a line ordinal and as a byte offset). The new file
holds only what came after the revert; its own lines go on from the cut's ordinal. A
second revert's base may name the first revert's file, and so on: a chain, followed here
(openai/codex thread-store `revert_thread`, `rollout_lineage`).

A base that names another thread's file is a fork's or a sub-agent's inheritance: that is
the parent's history, not this thread's, and the chain stops there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .. import files
from ._codex_values import as_dict, as_int, as_str, segment_id

MAX_SEGMENTS = 128  # Codex's own cap on a lineage


@dataclass(frozen=True, slots=True)
class Segment:
    """An older file of the thread and where the kept history in it ends."""

    path: Path
    end_ordinal: int | None  # lines with a smaller `ordinal` are kept
    end_offset: int | None  # else: lines ending at or before this byte are kept

    def keeps(self, line: files.Line, record: Mapping[str, object]) -> bool:
        """Whether this line is part of the kept history (not what the revert undid)."""
        ordinal = as_int(record.get("ordinal"))
        if ordinal is not None and self.end_ordinal is not None:
            return ordinal < self.end_ordinal
        if self.end_offset is not None:
            return line.end <= self.end_offset
        return True


def first_record(path: Path) -> dict[str, object] | None:
    """A rollout's first line when it is its `session_meta` (None if unreadable)."""
    try:
        for line in files.head_lines(path, 1):
            record = files.parse_json(line)
            if record is not None and record.get("type") == "session_meta":
                return record
    except OSError:
        return None
    return None


def earlier_segments(
    leaf: Path,
    meta: Mapping[str, object],
    find: Callable[[str], Path | None],
    missing: Callable[[str], None],
) -> list[Segment]:
    """The older files whose starts the thread of `leaf` (its `session_meta` payload is
    `meta`) kept through its reverts, oldest first. `find` locates a rollout by its rollout
    id; `missing` hears of a kept file that is gone."""
    thread = as_str(meta.get("id"))
    seen = {segment_id(leaf.name)}
    found: list[Segment] = []
    base = as_dict(meta.get("history_base"))
    while base and thread and len(found) < MAX_SEGMENTS:
        rollout = as_str(base.get("thread_id"))
        end_ordinal = as_int(base.get("end_ordinal_exclusive"))
        end_offset = as_int(base.get("end_byte_offset"))
        if rollout is None or rollout in seen:
            break  # nothing named, or a cycle
        if end_ordinal is None and end_offset is None:
            break
        seen.add(rollout)
        path = find(rollout)
        if path is None:
            if rollout == thread:
                missing(rollout)  # the thread's own first file: its start is lost
            break  # else: another thread's (a fork's parent), or a gone segment
        first = first_record(path)
        older = as_dict(first.get("payload")) if first else {}
        if as_str(older.get("id")) != thread:
            break  # another thread's history: a fork's or a sub-agent's inheritance
        found.append(Segment(path, end_ordinal, end_offset))
        base = as_dict(older.get("history_base"))
    found.reverse()
    return found
