"""The per-file Follower: only appended bytes are read; rewrites, truncation, deletion and
partial lines are noticed. Invariants are asserted by counting bytes, never by timing."""

from __future__ import annotations

import os
from pathlib import Path

from sessdex.follow import FINGERPRINT, Change, Follower


def take(follower: Follower) -> list[bytes]:
    return [line.data for line in follower.lines()]


def test_reads_only_what_was_appended(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n{"a":2}\n')
    follower = Follower(path)
    assert follower.check() is Change.GROWN
    assert take(follower) == [b'{"a":1}', b'{"a":2}']
    with path.open("ab") as f:
        f.write(b'{"a":3}\n')
    before = follower.bytes_read
    assert follower.check() is Change.GROWN
    assert take(follower) == [b'{"a":3}']
    # the new line and the fingerprint before it: nothing of the old lines is parsed
    assert follower.bytes_read - before <= len(b'{"a":3}\n') + 2 * FINGERPRINT


def test_no_change_reads_zero_bytes(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n' * 1000)
    follower = Follower(path)
    follower.check()
    take(follower)
    read = follower.bytes_read
    for _ in range(50):
        assert follower.check() is Change.NONE
        assert take(follower) == []
    assert follower.bytes_read == read


def test_partial_line_waits_for_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n{"a":')
    follower = Follower(path)
    follower.check()
    assert take(follower) == [b'{"a":1}']
    assert follower.pending == len(b'{"a":')
    with path.open("ab") as f:
        f.write(b"2")  # still no newline: only the new byte is looked at
    before = follower.bytes_read
    assert follower.check() is Change.GROWN
    assert take(follower) == []
    assert (
        follower.bytes_read - before <= 1 + FINGERPRINT
    )  # the new byte, the fingerprint
    with path.open("ab") as f:
        f.write(b'}\n{"a":3}\n')
    follower.check()
    assert take(follower) == [b'{"a":2}', b'{"a":3}']
    assert follower.pending == 0


def test_a_complete_object_without_its_newline_is_held(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}')
    follower = Follower(path)
    follower.check()
    assert take(follower) == []
    with path.open("ab") as f:
        f.write(b"\n")
    follower.check()
    assert take(follower) == [b'{"a":1}']


def test_rewrite_with_the_same_size_is_noticed_by_the_fingerprint(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n{"a":2}\n')
    follower = Follower(path)
    follower.check()
    take(follower)
    stat = path.stat()
    path.write_bytes(b'{"b":1}\n{"b":2}\n')  # same size, same inode
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert follower.check() is Change.REWRITTEN
    assert take(follower) == [b'{"b":1}', b'{"b":2}']
    assert follower.rewrites == 1


def test_rewrite_that_grows_restarts_from_zero(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n')
    follower = Follower(path)
    follower.check()
    take(follower)
    path.write_bytes(b'{"z":0}\n{"a":1}\n{"a":2}\n')  # compaction or resume: a new file
    assert follower.check() is Change.REWRITTEN
    assert take(follower) == [b'{"z":0}', b'{"a":1}', b'{"a":2}']


def test_truncation_and_replacement(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n{"a":2}\n')
    follower = Follower(path)
    follower.check()
    take(follower)
    path.write_bytes(b'{"c":1}\n')  # shorter than the offset
    assert follower.check() is Change.REWRITTEN
    assert take(follower) == [b'{"c":1}']
    other = tmp_path / "new.jsonl"
    other.write_bytes(b'{"c":1}\n{"d":1}\n')
    other.replace(path)  # an atomic save: a new inode
    assert follower.check() is Change.REWRITTEN
    assert take(follower) == [b'{"c":1}', b'{"d":1}']


def test_deletion_and_recreation(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n')
    follower = Follower(path)
    follower.check()
    take(follower)
    path.unlink()
    assert follower.check() is Change.VANISHED
    assert follower.check() is Change.NONE
    path.write_bytes(b'{"a":9}\n')
    assert follower.check() is Change.REWRITTEN
    assert take(follower) == [b'{"a":9}']


def test_missing_file_is_waited_for(tmp_path: Path) -> None:
    path = tmp_path / "later.jsonl"
    follower = Follower(path)
    assert follower.check() is Change.NONE
    path.write_bytes(b'{"a":1}\n')
    assert follower.check() is Change.GROWN
    assert take(follower) == [b'{"a":1}']


def test_starting_inside_a_line_skips_to_the_next(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"first":1}\n{"second":2}\n')
    follower = Follower(path, offset=4)
    follower.check()
    assert take(follower) == [b'{"second":2}']
    at_start = Follower(path, offset=len(b'{"first":1}\n'))
    at_start.check()
    assert take(at_start) == [b'{"second":2}']


def test_stopping_early_keeps_the_offset_consistent(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(b'{"n":%d}\n' % n for n in range(10)))
    follower = Follower(path)
    follower.check()
    lines = follower.lines()
    assert next(lines).data == b'{"n":0}'
    lines.close()
    with path.open("ab") as f:
        f.write(b'{"n":10}\n')
    assert follower.check() is Change.GROWN  # not mistaken for a rewrite
    assert next(line.data for line in follower.lines()) == b'{"n":1}'


def test_a_big_rewrite_is_read_again_from_its_tail(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(b'{"n":%06d}\n' % n for n in range(1000)))
    follower = Follower(path)
    follower.check()
    assert len(take(follower)) == 1000
    path.write_bytes(b"".join(b'{"m":%06d}\n' % n for n in range(1000)))
    assert follower.check() is Change.REWRITTEN
    before = follower.bytes_read
    follower.skip_to_tail(120)
    assert take(follower) == [b'{"m":%06d}' % n for n in range(991, 1000)]
    assert follower.bytes_read - before < 3 * 120 + FINGERPRINT  # not the 13 KB file


def test_a_pipe_put_where_the_file_was_between_check_and_read_is_not_waited_on(
    tmp_path: Path,
) -> None:
    """The file grew, then was replaced by a named pipe before its lines were read:
    opening the pipe to read would wait for a writer forever; the read gives nothing."""
    import signal

    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n')
    follower = Follower(path)
    assert follower.check() is Change.GROWN
    path.unlink()
    os.mkfifo(path)

    def hung(signum: int, frame: object) -> None:
        raise AssertionError("the follower waited on a pipe")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(5)
    try:
        assert take(follower) == []
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
