"""Sparse transcripts: a hole (`truncate -s 64G`, a file preallocated and written in
parts) holds NUL bytes the disk never stored and no JSON line. sessdex read one byte by
byte (minutes for 64 GB in `show` and `usage`, 64 MB of it in each listing); now a hole is
passed over where the system says where it is (SEEK_HOLE), and counted as one skipped
line.

What is measured is what the process read (`rchar` of /proc/self/io, which counts the
children a test ran and waited for), not time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sessdex import files
from sessdex.diagnostics import HOLE, Diagnostics
from tests.helpers import claude_line, write_claude_session

HOLE_SIZE = 64 * 1024**3  # 64 GB that take no disk
SESSION = "5a5a5a5a-0000-4000-8000-00000000005a"
MB = 1024 * 1024


def _holes_seen(folder: Path) -> bool:
    """Whether this system and file system say where a file's holes are."""
    if not hasattr(os, "SEEK_DATA") or not Path("/proc/self/io").exists():
        return False
    probe = folder / "probe"
    with open(probe, "wb") as stream:
        stream.truncate(16 * MB)
        stream.seek(16 * MB)
        stream.write(b"x")
    fd = os.open(probe, os.O_RDONLY)
    try:
        return os.lseek(fd, 0, os.SEEK_DATA) > 0
    except OSError:
        return False
    finally:
        os.close(fd)
        probe.unlink()


@pytest.fixture
def sparse_ok(tmp_path: Path) -> None:
    if not _holes_seen(tmp_path):
        pytest.skip("this system does not say where a file's holes are")


def _read_so_far() -> int:
    """Bytes this process (and its children waited for) has read through read calls."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


def _late_line() -> bytes:
    """An answer written after the hole: its tokens and its text are what a user misses
    when the hole stops the read."""
    line = claude_line(
        SESSION,
        "/w/sparse",
        type="assistant",
        uuid="a2",
        parentUuid="a1",
        timestamp="2026-11-20T10:05:00.000Z",
        requestId="req_2",
        message={
            "id": "msg_2",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "stop_reason": "end_turn",
            "content": [{"type": "text", "text": "written after the hole"}],
            "usage": {"input_tokens": 100, "output_tokens": 50},
        },
    )
    return json.dumps(line).encode()


def _sparse_session(home: Path, *, after: bool) -> Path:
    """Two turns, then a 64 GB hole; with `after`, a line of its own after it."""
    path = write_claude_session(home, SESSION, "/w/sparse")
    with path.open("r+b") as stream:
        stream.truncate(path.stat().st_size + HOLE_SIZE)
        if after:
            stream.seek(0, os.SEEK_END)
            stream.write(b"\n" + _late_line() + b"\n")
    return path


def _sessdex(*args: str, state: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sessdex", *args],
        env={**os.environ, "SESSDEX_HOME": str(state)},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.usefixtures("sparse_ok")
@pytest.mark.parametrize("after", [True, False], ids=["hole mid-file", "hole at end"])
def test_a_64_gb_hole_is_passed_over_by_list_show_and_usage(
    tmp_path: Path, after: bool
) -> None:
    home, state = tmp_path / "home", tmp_path / "state"
    _sparse_session(home, after=after)
    before = _read_so_far()
    listed = _sessdex("list", "--json", "--home", str(home), state=state)
    shown = _sessdex("show", SESSION, "--json", "--home", str(home), state=state)
    usage = _sessdex("usage", "--json", "--home", str(home), state=state)
    read = _read_so_far() - before
    assert listed.returncode == 0, listed.stderr
    assert [row["id"] for row in json.loads(listed.stdout)] == [SESSION]
    assert shown.returncode == 0, shown.stderr
    assert "hello there" in shown.stdout
    assert ("written after the hole" in shown.stdout) is after
    assert usage.returncode == 0, usage.stderr
    days = json.loads(usage.stdout)
    assert sum(day["input_tokens"] for day in days) == (110 if after else 10)
    # three runs of Python and its modules, and the home: no more than that was read
    # (the hole read through, it was 64 MB in the listing, and then minutes)
    assert read < 48 * MB, f"{read / MB:.0f} MB read"
    # the hole is said as the skipped line it is
    assert "unreadable line" in shown.stderr + usage.stderr


@pytest.mark.usefixtures("sparse_ok")
def test_reading_a_hole_counts_one_skipped_line_and_keeps_offsets(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.jsonl"
    with open(path, "wb") as stream:
        stream.write(b'{"n":1}\n{"n":2')  # a line the hole cut
        stream.seek(HOLE_SIZE, os.SEEK_CUR)
        stream.write(b'"}\n{"n":3}\n')
    diagnostics = Diagnostics()
    before = _read_so_far()
    read = [
        (line.number, line.offset, record)
        for line, record in files.iter_records(path, diagnostics)
    ]
    assert _read_so_far() - before < 8 * MB
    late = HOLE_SIZE + len(b'{"n":1}\n{"n":2"}\n')
    assert read == [(1, 0, {"n": 1}), (3, late, {"n": 3})]
    assert diagnostics.skipped == {HOLE: 1}
    assert diagnostics.details == [(str(path), 2, HOLE)]


@pytest.mark.usefixtures("sparse_ok")
def test_a_search_of_a_middle_passes_over_its_holes(tmp_path: Path) -> None:
    """What Copilot's resume searches a long session's middle for (its whole middle,
    however long), and other apps' listings up to MIDDLE_CAP: found on both sides of
    a hole, without reading it."""
    path = tmp_path / "a.jsonl"
    with open(path, "wb") as stream:
        stream.write(b'{"mark":1}\n{"other":2}\n')
        stream.seek(HOLE_SIZE, os.SEEK_CUR)
        stream.write(b'\n{"mark":3}\n{"other":4}\n')
    size = path.stat().st_size
    before = _read_so_far()
    found = [line.data for line in files.lines_with(path, b'"mark"', 0, size, cap=size)]
    assert _read_so_far() - before < 8 * MB
    assert found == [b'{"mark":3}', b'{"mark":1}']


@pytest.mark.usefixtures("sparse_ok")
def test_a_head_stops_at_a_hole(tmp_path: Path) -> None:
    """A listing's head read 64 MB of a hole (its byte budget) as one over-long line."""
    path = _sparse_session(tmp_path / "home", after=True)
    diagnostics = Diagnostics()
    before = _read_so_far()
    lines = files.head_lines(path, diagnostics=diagnostics)
    assert _read_so_far() - before < 8 * MB
    assert [json.loads(line.data)["uuid"] for line in lines] == ["u1", "a1", "a2"]
    assert diagnostics.skipped == {HOLE: 1}


def test_without_word_of_holes_a_hole_is_read_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the system cannot say where holes are (no SEEK_DATA), the NULs are read,
    as any other over-long line: nothing breaks."""
    monkeypatch.delattr(os, "SEEK_DATA", raising=False)
    monkeypatch.delattr(os, "SEEK_HOLE", raising=False)
    path = tmp_path / "a.jsonl"
    with open(path, "wb") as stream:
        stream.write(b'{"n":1}\n')
        stream.seek(8 * MB, os.SEEK_CUR)
        stream.write(b'\n{"n":3}\n')
    diagnostics = Diagnostics()
    records = [record for _, record in files.iter_records(path, diagnostics)]
    assert records == [{"n": 1}, {"n": 3}]
    assert diagnostics.skipped == {"too long": 1}


@pytest.mark.usefixtures("sparse_ok")
def test_the_start_of_a_line_after_a_hole_is_found_without_reading_it(
    tmp_path: Path,
) -> None:
    """`show --tail` reads back from where a line starts in a window of the file's end,
    each window wider: one that began in a 64 GB hole read the hole to its end."""
    path = _sparse_session(tmp_path / "home", after=True)
    size = path.stat().st_size
    before = _read_so_far()
    start = files.line_start(path, 1024)
    assert _read_so_far() - before < 8 * MB
    assert start == size - len(_late_line()) - 1
    home, state = tmp_path / "home", tmp_path / "state"
    shown = _sessdex("show", SESSION, "--tail", "1", "--home", str(home), state=state)
    assert shown.returncode == 0, shown.stderr
    assert "written after the hole" in shown.stdout


DATA = Path(__file__).parent / "data"


def _hole_in_each_transcript(home: Path) -> int:
    """A 64 GB hole, a line of its own, in the middle of each JSON-lines file of `home`
    (at the first line's end past its half): how many files have one."""
    holed = 0
    for path in sorted(home.rglob("*.jsonl")):
        data = path.read_bytes()
        at = data.find(b"\n", len(data) // 2) + 1
        if not 0 < at < len(data):
            continue
        with open(path, "wb") as stream:
            stream.write(data[:at])
            stream.seek(HOLE_SIZE, os.SEEK_CUR)
            stream.write(b"\n" + data[at:])
        holed += 1
    return holed


@pytest.mark.usefixtures("sparse_ok")
@pytest.mark.parametrize("app", ["codex", "vibe", "gptme", "copilot", "qwen", "hermes"])
def test_every_session_of_a_home_with_holes_is_listed_shown_and_counted_unread(
    tmp_path: Path, app: str
) -> None:
    """Each app's reader passes its files' holes over: none of them reads one through
    (a line count, a search for a line's start, a search of a middle)."""
    import shutil

    home, state = tmp_path / "home", tmp_path / "state"
    shutil.copytree(DATA / app / "home", home, symlinks=True)
    assert _hole_in_each_transcript(home)
    before = _read_so_far()
    listed = _sessdex("list", "--json", "--all", "--home", str(home), state=state)
    assert listed.returncode == 0, listed.stderr
    ids = [row["id"] for row in json.loads(listed.stdout)][:4]
    assert ids
    for session in ids:
        for args in (["--json"], ["--tail", "2"]):
            shown = _sessdex("show", session, *args, "--home", str(home), state=state)
            assert shown.returncode == 0, shown.stderr
    usage = _sessdex("usage", "--json", "--home", str(home), state=state)
    assert usage.returncode == 0, usage.stderr
    runs = 2 + 2 * len(ids)
    read = _read_so_far() - before
    assert read < runs * 16 * MB, f"{read / MB:.0f} MB read in {runs} runs"


@pytest.mark.usefixtures("sparse_ok")
def test_following_a_file_passes_its_hole_over(tmp_path: Path) -> None:
    """`follow` and `watch` read a followed file's new lines through a stream of their
    own (which counts what it reads): a hole in them was read through."""
    from sessdex.follow import Follower

    path = tmp_path / "a.jsonl"
    with open(path, "wb") as stream:
        stream.write(b'{"n":1}\n')
        stream.seek(HOLE_SIZE, os.SEEK_CUR)
        stream.write(b'\n{"n":3}\n')
    diagnostics = Diagnostics()
    follower = Follower(path, diagnostics=diagnostics)
    follower.check()
    assert [line.data for line in follower.lines()] == [b'{"n":1}', b'{"n":3}']
    assert follower.bytes_read < 8 * MB
    assert follower.offset == path.stat().st_size
    assert diagnostics.skipped == {HOLE: 1}


@pytest.mark.usefixtures("sparse_ok")
def test_a_vs_code_chat_whose_first_line_holds_a_hole_is_read_past_it_unread(
    tmp_path: Path,
) -> None:
    """A VS Code chat log's first line (the whole chat's state) too long to read as a
    line is looked through for its end: a hole in it was read to its end."""
    from sessdex.sources import _vscode_chat as chat

    home = DATA / "vscode" / "home"
    original = sorted(home.rglob("chatSessions/*.jsonl"))[0].read_bytes()
    path = tmp_path / "chat.jsonl"
    with open(path, "wb") as stream:
        stream.write(original[:20])
        stream.seek(HOLE_SIZE, os.SEEK_CUR)
        stream.write(original[20:])
    diagnostics = Diagnostics()
    before = _read_so_far()
    chat.load(path, diagnostics)
    assert _read_so_far() - before < 64 * MB
    assert diagnostics.skipped_total


@pytest.mark.usefixtures("sparse_ok")
def test_a_json_document_with_a_hole_is_found_damaged_unread(tmp_path: Path) -> None:
    """A chat kept as one JSON document (Gemini's, Cline's, a VS Code chat's state) past
    READ_LINE_CAP is streamed through the compactor: a hole inside one of its strings
    was read to its end."""
    path = tmp_path / "chat.json"
    with open(path, "wb") as stream:
        stream.write(b'{"messages": [{"text": "')
        stream.seek(HOLE_SIZE, os.SEEK_CUR)
        stream.write(b'"}]}')
    diagnostics = Diagnostics()
    before = _read_so_far()
    assert files.read_json_compacted(path, diagnostics=diagnostics) is None
    assert _read_so_far() - before < 16 * MB
    assert diagnostics.skipped == {"not JSON": 1}


@pytest.mark.usefixtures("sparse_ok")
@pytest.mark.parametrize("app", ["gemini", "qwen"])
def test_a_chat_document_with_a_hole_in_a_string_is_counted_unread(
    tmp_path: Path, app: str
) -> None:
    """A chat kept as one JSON document, read a message at a time (`jsonstream`): a
    hole inside a message's text was read through by `usage` (1 GB read for 1 GB)."""
    import shutil

    home, state = tmp_path / "home", tmp_path / "state"
    shutil.copytree(DATA / app / "home", home, symlinks=True)
    chats = sorted(home.rglob("chats/*.json"))
    assert chats
    for chat in chats:
        data = chat.read_bytes()
        at = data.find(b'"', len(data) // 2) + 1  # inside a string
        with open(chat, "wb") as stream:
            stream.write(data[:at])
            stream.seek(HOLE_SIZE, os.SEEK_CUR)
            stream.write(data[at:])
    before = _read_so_far()
    usage = _sessdex("usage", "--json", "--home", str(home), state=state)
    read = _read_so_far() - before
    assert usage.returncode == 0, usage.stderr
    assert read < 32 * MB, f"{read / MB:.0f} MB read"


@pytest.mark.usefixtures("sparse_ok")
def test_following_from_inside_a_hole_finds_the_next_line_unread(
    tmp_path: Path,
) -> None:
    """`follow` starts a window back from a big file's end, and first passes over the
    line it starts inside: one inside a hole was read to the hole's end."""
    from sessdex.follow import Follower

    path = tmp_path / "a.jsonl"
    with open(path, "wb") as stream:
        stream.write(b'{"n":1}\n')
        stream.seek(HOLE_SIZE, os.SEEK_CUR)
        stream.write(b'\n{"n":3}\n')
    follower = Follower(path, offset=1024)  # inside the hole
    follower.check()
    assert [line.data for line in follower.lines()] == [b'{"n":3}']
    assert follower.bytes_read < 8 * MB


def _title_line(title: str) -> bytes:
    """A `/rename` record, as Claude Code appends it: the tail's to find."""
    record = {"type": "custom-title", "customTitle": title, "sessionId": SESSION}
    return json.dumps(record).encode() + b"\n"


@pytest.mark.usefixtures("sparse_ok")
def test_a_listing_finds_the_last_lines_before_a_hole_at_the_end(
    tmp_path: Path,
) -> None:
    """A transcript ending in a hole (preallocated, its last writes never made): the
    listing's tail read 512 KB of NULs and no line, so a name given late was lost and
    the first prompt titled it."""
    home, state = tmp_path / "home", tmp_path / "state"
    path = write_claude_session(home, SESSION, "/w/sparse")
    with path.open("ab") as stream:
        for turn in range(files.HEAD_LINES + 20):  # the name lies past the head
            stream.write(_late_line().replace(b'"a2"', f'"x{turn}"'.encode()) + b"\n")
        stream.write(_title_line("named late"))
        stream.truncate(stream.tell() + HOLE_SIZE)
    listed = _sessdex("list", "--json", "--verbose", "--home", str(home), state=state)
    assert listed.returncode == 0, listed.stderr
    assert [row["title"] for row in json.loads(listed.stdout)] == ["named late"]
    assert "unfinished" not in listed.stderr  # a hole: no line an app is writing
    before = _read_so_far()
    _, data = files.tail_bytes(path)
    assert _read_so_far() - before < 1 * MB
    # the last data, and the hole given as one NUL (after the rest of its last block)
    assert data.rstrip(b"\x00").endswith(_title_line("named late"))
    assert len(data) - len(data.rstrip(b"\x00")) <= 64 * 1024
    assert files.tail_lines(path)[-2].data == _title_line("named late")[:-1]
    size, _, tail = files.ends(path)
    assert size == path.stat().st_size
    assert tail[-2].data == _title_line("named late")[:-1]
    assert _read_so_far() - before < 2 * MB


@pytest.mark.usefixtures("sparse_ok")
def test_the_usage_scan_reads_no_chunk_of_a_hole(tmp_path: Path) -> None:
    """Claude Code's usage scan reads 4 MB at a time: the first read of a transcript
    with a hole after its first lines read 4 MB of the hole's NULs."""
    from sessdex.sources import _claude_usage

    path = _sparse_session(tmp_path / "home", after=True)
    diagnostics = Diagnostics()
    before = _read_so_far()
    scan = _claude_usage.usage_records(path, diagnostics)
    assert _read_so_far() - before < 1 * MB
    assert sum(record.usage.input_tokens for record in scan.records) == 110
    assert diagnostics.skipped == {HOLE: 1}
    assert scan.offset == path.stat().st_size


@pytest.mark.usefixtures("sparse_ok")
def test_a_hole_at_the_end_is_counted_by_the_usage_scan(tmp_path: Path) -> None:
    """`show` said a transcript's closing hole as a skipped line; `usage` said nothing."""
    from sessdex.sources import _claude_usage

    home, state = tmp_path / "home", tmp_path / "state"
    path = _sparse_session(home, after=False)
    diagnostics = Diagnostics()
    scan = _claude_usage.usage_records(path, diagnostics)
    assert sum(record.usage.input_tokens for record in scan.records) == 10
    assert diagnostics.skipped == {HOLE: 1}
    usage = _sessdex("usage", "--json", "--home", str(home), state=state)
    assert usage.returncode == 0, usage.stderr
    assert "1 unreadable line" in usage.stderr


@pytest.mark.usefixtures("sparse_ok")
def test_a_small_file_read_whole_is_refused_unread_past_its_limit(
    tmp_path: Path,
) -> None:
    """A meta or config file read whole (`read_small`) with a hole past its limit: it
    was read up to the limit (64 MB for some) before being refused."""
    path = tmp_path / "meta.json"
    with open(path, "wb") as stream:
        stream.write(b'{"title": "a"}')
        stream.truncate(HOLE_SIZE)
    before = _read_so_far()
    assert files.read_small(path, 64 * MB) is None
    assert files.read_json_file(path, 64 * MB) is None
    assert _read_so_far() - before < 1 * MB
    small = tmp_path / "small.json"
    small.write_bytes(b'{"title": "a"}')
    assert files.read_small(small, 14) == b'{"title": "a"}'
    assert files.read_small(small, 13) is None


@pytest.mark.usefixtures("sparse_ok")
@pytest.mark.parametrize("after", [True, False], ids=["hole mid-file", "hole at end"])
def test_a_transcript_is_shown_without_reading_a_chunk_of_its_hole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, after: bool
) -> None:
    """`show` (the api's `transcript`) of a Claude Code transcript with a hole: its
    reader took lines a megabyte at a time up to the longest line it keeps (4 MB)
    before passing the hole over, on each of its two passes: 12 MB of NULs a show."""
    from sessdex import api
    from sessdex.sources import Home

    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    _sparse_session(home, after=after)
    listed = _sessdex("list", "--home", str(home), state=tmp_path / "state")
    assert listed.returncode == 0, listed.stderr  # the index made
    before = _read_so_far()
    found = api.transcript(Home.at(home), SESSION[:8])
    texts = " ".join(event.text or "" for event in found.events)
    read = _read_so_far() - before
    assert "hello there" in texts
    assert ("written after the hole" in texts) is after
    assert found.diagnostics.skipped == {HOLE: 1}
    assert read < 1 * MB, f"{read / MB:.1f} MB read"


@pytest.mark.usefixtures("sparse_ok")
def test_a_tail_starts_past_a_hole_inside_it(tmp_path: Path) -> None:
    """A file whose last line follows a hole: the listing's tail read the last 512 KB
    of the hole's NULs before it."""
    path = tmp_path / "a.jsonl"
    with open(path, "wb") as stream:
        stream.write(b'{"n":1}\n{"n":2}\n')
        stream.seek(HOLE_SIZE, os.SEEK_CUR)
        stream.write(b'\n{"n":3}\n')
    before = _read_so_far()
    lines = files.tail_lines(path)
    size, head, tail = files.ends(path)
    assert _read_so_far() - before < 256 * 1024
    assert [line.data for line in lines] == [b'{"n":3}']
    assert lines[0].offset == size - len(b'{"n":3}\n')
    assert [line.data for line in tail] == [b'{"n":3}']
    assert [line.data for line in head][:2] == [b'{"n":1}', b'{"n":2}']
