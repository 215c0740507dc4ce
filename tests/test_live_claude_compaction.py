"""A followed Claude Code / Qoder session whose compaction no summary line follows (Qoder
may never write one): `follow` draws it once its read reaches a quiet end of the file, as
`show` draws it at its end; a summary written after that is not drawn as a second one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sessdex import api
from sessdex.live import LiveSession
from sessdex.model import Event
from sessdex.sources import Home

QODER = Path(__file__).parent / "data" / "qoder" / "home"
SESSION = "7c2a9e41-5d3b-4a6f-8e1c-0b9d7f3a2e58"


def _line(uuid: str, parent: str, kind: str, **fields: object) -> bytes:
    record = {
        "parentUuid": parent,
        "isSidechain": False,
        "sessionId": SESSION,
        "uuid": uuid,
        "timestamp": f"2026-12-02T14:4{len(uuid) % 10}:00.000Z",
        "type": kind,
        **fields,
    }
    return json.dumps(record).encode() + b"\n"


def _boundary(uuid: str, parent: str) -> bytes:
    meta = {"trigger": "auto", "preTokens": 80000}
    return _line(
        uuid, parent, "system", subtype="compact_boundary", compactMetadata=meta
    )


def _summary(uuid: str, parent: str) -> bytes:
    message = {"role": "user", "content": "Summary: the import was fixed."}
    return _line(uuid, parent, "user", isCompactSummary=True, message=message)


def _prompt(uuid: str, parent: str) -> bytes:
    return _line(uuid, parent, "user", message={"role": "user", "content": "Go on."})


def _follow(tmp_path: Path) -> tuple[LiveSession, Path]:
    home = tmp_path / "home"
    shutil.copytree(QODER, home)
    found = list((home / ".qoder" / "projects").glob(f"*/{SESSION}.jsonl"))
    return LiveSession(api.resolve(Home.at(home), SESSION)), found[0]


def _compactions(events: list[Event]) -> list[str | None]:
    return [event.text for event in events if event.kind == "compaction"]


def test_a_compaction_no_summary_follows_is_drawn_by_the_first_read(
    tmp_path: Path,
) -> None:
    follower, _ = _follow(tmp_path)
    assert _compactions(list(follower.poll())) == [None]


def test_a_summary_written_after_a_drawn_compaction_is_not_drawn_again(
    tmp_path: Path,
) -> None:
    follower, log = _follow(tmp_path)
    follower.poll()
    with log.open("ab") as stream:
        stream.write(_summary("s1", "o3") + _prompt("p22", "s1"))
    assert _compactions(list(follower.poll())) == []


def test_a_compaction_written_live_is_drawn_once_with_its_summary_or_without(
    tmp_path: Path,
) -> None:
    follower, log = _follow(tmp_path)
    follower.poll()
    with log.open("ab") as stream:  # boundary and summary in one write: one, summed up
        stream.write(_boundary("b4444", "o3") + _summary("s4444", "b4444"))
    assert _compactions(list(follower.poll())) == ["Summary: the import was fixed."]
    with log.open("ab") as stream:  # a boundary alone: drawn as the read ends
        stream.write(_boundary("b55555", "s4444"))
    assert _compactions(list(follower.poll())) == [None]
    with log.open("ab") as stream:
        stream.write(_prompt("p666666", "b55555"))
    assert _compactions(list(follower.poll())) == []
