"""A parse that read only a file's head, or needed it only to be there (`freshness`)."""

from __future__ import annotations

import os
from pathlib import Path

from sessdex import freshness


def noted(path: Path, note: str) -> str:
    with freshness.depending() as read:
        if note == "head":
            freshness.note_head(path, 6)
        elif note == "present":
            freshness.note_present(path)
        else:  # its head, then the whole of it
            freshness.note_head(path, 6)
            freshness.note_depended(path)
    return read[str(path)]


def holds(path: Path, signature: str) -> bool:
    return freshness.holds(signature, freshness.read_signature(str(path)))


def test_a_head_holds_while_the_file_grows_not_once_cut_below_it_or_replaced(
    tmp_path: Path,
) -> None:
    log = tmp_path / "messages.jsonl"
    log.write_bytes(b"first\nsecond\n")
    head = noted(log, "head")
    with log.open("ab") as more:
        more.write(b"third\n")
    assert holds(log, head)
    os.truncate(log, 6)
    assert holds(log, head)
    os.truncate(log, 5)
    assert not holds(log, head)
    other = tmp_path / "other"
    other.write_bytes(b"first\nsecond\n")
    os.replace(other, log)  # the same bytes, another file
    assert not holds(log, head)
    log.unlink()
    assert not holds(log, head)


def test_present_holds_until_the_file_goes_and_a_whole_read_is_compared_whole(
    tmp_path: Path,
) -> None:
    meta = tmp_path / "meta.json"
    meta.write_text('{"session_id": "a"}')
    present, whole = noted(meta, "present"), noted(meta, "whole")
    meta.write_text('{"session_id": "a", "title": "longer"}')
    assert holds(meta, present)
    assert not holds(meta, whole)
    meta.unlink()
    assert not holds(meta, present)
    assert noted(meta, "present") == freshness.ABSENT
