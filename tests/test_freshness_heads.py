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


def test_a_note_of_a_file_changed_in_its_tick_holds_only_while_its_bytes_do(
    tmp_path: Path,
) -> None:
    """A file rewritten at its size in its clock's tick of a parse's read looks as it
    did (stamped here ahead of the clock, put back after the write): the note the index
    keeps of it (`settled_look`) no longer holds on its look, but on its first bytes or
    its sub-folders where that is all the parse read of it."""
    meta = tmp_path / "meta.json"
    meta.write_bytes(b'{"id": "a1", "title": "old"}')
    stamp = ((os.stat(meta).st_mtime_ns // 10**9) + 60) * 10**9 + 123_456_789
    os.utime(meta, ns=(stamp, stamp))
    since = stamp - 1  # the read began just before that stamp
    with freshness.depending() as read:
        freshness.note_depended(meta)
    whole = read[str(meta)]
    with freshness.depending() as read:
        freshness.note_start(meta, b'{"id": "a1"')
    start = read[str(meta)]
    kept_whole = freshness.settled_look(whole, since)
    kept_start = freshness.settled_look(start, since)
    assert holds(meta, whole) and holds(meta, start)
    meta.write_bytes(b'{"id": "a1", "title": "new"}')
    os.utime(meta, ns=(stamp, stamp))
    assert holds(meta, whole)  # the look alone: the change unseen
    assert not freshness.holds(kept_whole, freshness.read_signature(str(meta)))
    assert freshness.holds(kept_start, freshness.read_signature(str(meta)), str(meta))
    meta.write_bytes(b'{"id": "b2", "title": "new"}')
    os.utime(meta, ns=(stamp, stamp))
    assert holds(meta, start)
    assert not freshness.holds(
        kept_start, freshness.read_signature(str(meta)), str(meta)
    )
    # a note of no time is kept as it is: its head, its presence, its absence
    for note in ("present", "head 12 6", freshness.ABSENT):
        assert freshness.settled_look(note, since) == note


def test_a_folders_note_of_a_folder_changed_in_its_tick_holds_while_its_folders_do(
    tmp_path: Path,
) -> None:
    saves = tmp_path / "saves"
    (saves / "one").mkdir(parents=True)
    stamp = ((os.stat(saves).st_mtime_ns // 10**9) + 60) * 10**9 + 123_456_789
    os.utime(saves, ns=(stamp, stamp))
    with freshness.depending() as read:
        freshness.note_folders(saves)
    kept = freshness.settled_look(read[str(saves)], stamp - 1)
    assert kept != read[str(saves)]
    now = freshness.read_signature(str(saves))
    assert freshness.holds(kept, now, str(saves))  # its sub-folders: still "one"
    (saves / "one").rename(saves / "two")
    os.utime(saves, ns=(stamp, stamp))
    now = freshness.read_signature(str(saves))
    assert freshness.holds(read[str(saves)], now, str(saves))  # its look alone
    assert not freshness.holds(kept, now, str(saves))
