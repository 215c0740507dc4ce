"""Which message ids two files share, found from the stored keys blobs without a dict of
every id (`usage._in_two_files`): the same ids as the whole-dict pass it replaced."""

from __future__ import annotations

import random
from pathlib import Path

from sessdex import usage


def whole_dict_pass(blobs: list[bytes]) -> set[int]:
    """The first pass as it was: message id -> the first file, and those met again."""
    first_with: dict[int, int] = {}
    also_with: set[int] = set()
    for n, blob in enumerate(blobs):
        for _, message, _ in usage._key_items(blob):
            if first_with.setdefault(message, n) != n:
                also_with.add(message)
    return also_with


def blob(lines: list[str]) -> bytes:
    return "\n".join(lines).encode()


def test_an_id_twice_in_one_file_is_not_shared_and_one_in_three_is() -> None:
    files = [
        blob(
            ["msg_a:req_1\t0", "msg_a:req_2\t0", "msg_b:req_3\t1"]
        ),  # msg_a twice here
        blob(["msg_b:req_3\t0", "msg_c\t0"]),
        blob(["msg_c\t1", "msg_b:req_9\t0", ""]),
        b"",
    ]
    shared = usage._in_two_files(files)
    assert shared == {hash(b"msg_b"), hash(b"msg_c")}
    assert shared == whole_dict_pass(files)


def test_many_files_share_what_the_whole_dict_pass_found() -> None:
    chance = random.Random(7)
    ids = [f"msg_{n:05}" for n in range(3000)]
    files = []
    for _ in range(200):
        picked = chance.sample(ids, chance.randint(0, 60))
        lines = [
            f"{m}:req_{chance.randint(0, 3)}\t{chance.randint(0, 1)}" for m in picked
        ]
        lines += lines[: chance.randint(0, 5)]  # the same response again in the file
        files.append(blob(lines))
    shared = usage._in_two_files(files)
    assert len(shared) > 100
    assert shared == whole_dict_pass(files)


def test_the_check_over_many_files_holds_a_few_bytes_per_response() -> None:
    """A home of many sessions: the ids of every response are held as 8 bytes each, not
    as a dict entry each (~90 bytes: 25 MB for the 280,000 responses of 10,000 sessions)."""
    import tracemalloc

    from sessdex import sources

    files, per_file = 400, 100
    keys = {
        f"/p/{n:04}.jsonl": blob(
            [f"msg_{n:04}_{m:04}:req_{m}\t0" for m in range(per_file)]
        )
        for n in range(files)
    }
    tracemalloc.start()
    try:
        found = usage.cross_file_losers(sources.get("claude"), keys)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == []  # nothing shared: no file is read
    assert peak < 30 * files * per_file


def test_one_big_file_is_checked_in_less_than_its_keys_blob() -> None:
    """A big lead session (a 2 GB file holds ~400,000 responses): its own ids are taken
    once each a sixteenth at a time, not in a set of them all (~100 bytes a response,
    twice its keys blob)."""
    import tracemalloc

    def lines(start: int, count: int) -> bytes:
        return blob(
            [f"msg_01{m:020}:req_{m:020}\t0" for m in range(start, start + count)]
        )

    usage._in_two_files([lines(0, 10), lines(5, 10)])  # imports warmed
    big, fork = lines(0, 200_000), lines(199_000, 2000)
    tracemalloc.start()
    try:
        found = usage._in_two_files([big, fork])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(found) == 1000
    assert peak < len(big) / 2


def test_a_response_two_files_hold_and_one_a_file_repeats_are_each_counted_once(
    tmp_path: Path,
) -> None:
    """`usage --json` over a session and its copy: the response both hold, and the one
    the first holds twice (a streamed response written again), each counted once."""
    import orjson
    from click.testing import CliRunner

    from sessdex.cli import main

    def response(session: str, n: int, output: int) -> bytes:
        return orjson.dumps({"type": "assistant", "isSidechain": False,
                             "timestamp": f"2026-11-20T10:0{n}:00Z", "sessionId": session,
                             "cwd": "/home/dev/shop", "requestId": f"req_{n}", "uuid": f"{session}-{n}",
                             "message": {"id": f"msg_{n}", "model": "claude-sonnet-4-5",
                                         "usage": {"input_tokens": 100, "output_tokens": output}}}) + b"\n"  # fmt: skip

    folder = tmp_path / "home" / ".claude" / "projects" / "-home-dev-shop"
    folder.mkdir(parents=True)
    first, copy = (f"aaaaaaaa-0000-4000-8000-00000000000{n}" for n in (1, 2))
    (folder / f"{first}.jsonl").write_bytes(
        response(first, 1, 10) + response(first, 1, 10) + response(first, 2, 20)
    )
    (folder / f"{copy}.jsonl").write_bytes(
        response(copy, 2, 20) + response(copy, 3, 40)
    )
    run = CliRunner()
    result = run.invoke(
        main, ["usage", "app", "--json", "--home", str(tmp_path / "home")]
    )
    assert result.exit_code == 0, result.output
    (row,) = orjson.loads(result.stdout)
    assert (row["responses"], row["output_tokens"]) == (3, 70)
