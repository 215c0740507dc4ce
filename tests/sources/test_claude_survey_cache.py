"""The Claude survey kept between runs: a grown transcript reads only what was added, and
every read gives the events a fresh one gives, whatever was kept and wherever it was cut."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from sessdex import files, passcache
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session
from sessdex.sources import claude
from tests.sources.test_claude import prompt, record, reply, write

DATA = Path(__file__).parent.parent / "data" / "claude"
TRANSCRIPTS = sorted(
    path
    for path in DATA.rglob("*.jsonl")
    if "catalogue" not in path.parts and "subagents" not in path.parts
)


def events(path: Path) -> list[Event]:
    session = Session(app="claude", id=path.stem, path=str(path))
    return list(claude.read(session, Diagnostics()))


def fresh(path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Event]:
    """The events with nothing kept and nothing keeping."""
    with monkeypatch.context() as patch:
        patch.setattr(passcache, "load_with", lambda *args, **kwargs: None)
        patch.setattr(passcache, "save", lambda *args, **kwargs: None)
        return events(path)


@pytest.fixture
def kept(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every file of any size is kept; each resumed read's (file name, offset) noted."""
    monkeypatch.setattr(passcache, "MIN_SIZE", 1)
    resumed: list[tuple[str, int]] = []
    load_with = passcache.load_with

    def noting(
        path: Path, kind: str, parse: Any, stream: BinaryIO | None = None
    ) -> tuple[int, Any] | None:
        found = load_with(path, kind, parse, stream)
        if found is not None:
            resumed.append((path.name, found[0]))
        return found

    monkeypatch.setattr(passcache, "load_with", noting)
    return resumed


def copy_session(source: Path, target_folder: Path) -> Path:
    """The transcript and what sits beside it (its sub-agents' folder, old agent files)."""
    target_folder.mkdir(parents=True)
    for item in source.parent.iterdir():
        if item.is_dir():
            shutil.copytree(item, target_folder / item.name)
        elif item != source:
            shutil.copy2(item, target_folder / item.name)
    return target_folder / source.name


@pytest.mark.parametrize("source", TRANSCRIPTS, ids=lambda path: path.stem[:12])
def test_a_transcript_read_as_it_grew_gives_the_events_of_a_fresh_read(
    source: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    kept: list[tuple[str, int]],
) -> None:
    grows_like_a_fresh_read(source, tmp_path, monkeypatch, kept)


def test_a_rewind_past_a_spawn_arriving_after_the_cut_counts_the_spawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: list[tuple[str, int]]
) -> None:
    """What the kept state must carry: a spawn read before the cut, abandoned by a
    rewind read after it."""
    task = {
        "type": "tool_use",
        "id": "task1",
        "name": "Task",
        "input": {"description": "Helper", "prompt": "Look around"},
    }
    result = [{"type": "tool_result", "tool_use_id": "task1", "content": "Looked."}]
    lines = [
        prompt(1, "Plan the refactor"),
        reply(2, "Planned."),
        prompt(3, "Spawn a helper"),
        record("assistant", 4, message={"id": "m4", "role": "assistant",
                                        "content": [task]}),
        prompt(5, result, toolUseResult={"agentId": "abc", "status": "completed"}),
        reply(6, "The helper looked."),
        prompt(7, "Instead, just rename it", parentUuid="u2"),
        reply(8, "Renamed."),
    ]  # fmt: skip
    source = write(tmp_path / "source" / "s.jsonl", lines)
    (branch,) = [
        event.extra["abandoned_branch"]
        for event in fresh(source, monkeypatch)
        if "abandoned_branch" in event.extra
    ]
    assert branch == {"uuid": "u3", "lines": 4, "subagents": 1}
    grows_like_a_fresh_read(source, tmp_path / "grown", monkeypatch, kept)


def test_a_prompt_rewound_before_its_parent_was_written_is_abandoned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: list[tuple[str, int]]
) -> None:
    """A prompt whose parent's line comes after it (lines written out of order), then
    replaced: only the rewound prompt left the line placed before it, the replacement
    continued it. The survey looks for abandoned branches only where a prompt did, so
    that must be noted of the first, and kept with a survey cut after it."""
    lines = [
        prompt(1, "Wrong question", parentUuid="u2"),
        reply(2, "Ready.", parentUuid=None),
        prompt(3, "Right question"),
        reply(4, "The right answer."),
    ]
    source = write(tmp_path / "source" / "s.jsonl", lines)
    read = fresh(source, monkeypatch)
    assert [e.text for e in read if e.kind == "user"] == ["Right question"]
    (branch,) = [
        e.extra["abandoned_branch"] for e in read if "abandoned_branch" in e.extra
    ]
    assert branch == {"uuid": "u1", "lines": 1, "subagents": 0}
    grows_like_a_fresh_read(source, tmp_path / "grown", monkeypatch, kept)


def grows_like_a_fresh_read(
    source: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    kept: list[tuple[str, int]],
) -> None:
    """Cut after each line (rewinds, inline side chains and spawns may land on either
    side), read, let the rest arrive, read again: the second read resumes where the
    first stopped, and both it and a third read match a read of the whole file."""
    lines = source.read_bytes().splitlines(keepends=True)
    expected = fresh(source, monkeypatch)
    for cut in range(1, len(lines)):
        folder = tmp_path / f"cut{cut}"
        target = copy_session(source, folder)
        target.write_bytes(b"".join(lines[:cut]))
        first = events(target)
        assert first == fresh(target, monkeypatch)
        with open(target, "ab") as grow:
            grow.write(b"".join(lines[cut:]))
        kept.clear()
        assert events(target) == expected, cut
        assert kept == [(target.name, len(b"".join(lines[:cut])))]
        assert events(target) == expected
        if lines[-1].endswith(b"\n"):  # else the unfinished line is read each time
            assert kept[-1] == (target.name, target.stat().st_size)


def test_a_file_rewritten_in_place_is_surveyed_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: list[tuple[str, int]]
) -> None:
    """Same file, same inode, other lines (a rewind's session written over an unrelated
    one): what was kept for the old bytes is not used."""
    rewind = DATA / "home/.claude/projects/-home-dev-shop/11111111-1111-4111-8111-111111111111.jsonl"  # fmt: skip
    other = DATA / "home/.claude/projects/-path-to-Demo/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"  # fmt: skip
    target = tmp_path / "p" / rewind.name
    target.parent.mkdir()
    target.write_bytes(other.read_bytes())
    events(target)
    with open(target, "r+b") as rewrite:  # in place: the inode stays
        rewrite.write(rewind.read_bytes())
        rewrite.truncate()
    assert events(target) == fresh(target, monkeypatch)
    assert kept == []
    assert any("abandoned_branch" in event.extra for event in events(target))


def test_a_file_replaced_as_the_survey_opens_it_is_surveyed_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: list[tuple[str, int]]
) -> None:
    """What is kept is checked against the file the survey reads, not one opened before
    it: a file put in its place between the two would be read on from the old one's
    state (a resend taken for a rewind here), and that state kept for the new file."""

    def turns(stamp: str) -> list[dict[str, object]]:
        return [
            prompt(1, "Plan"),
            reply(2, "Planned."),
            prompt(3, "Do X", timestamp=f"2026-11-24T12:00:{stamp}.000Z"),
            reply(4, "Done."),
        ]

    target = write(tmp_path / "p" / "s.jsonl", turns("03"))
    events(target)
    resend = prompt(5, "Do X", parentUuid="u2", timestamp="2026-11-24T12:00:07.000Z")
    new = write(tmp_path / "new.jsonl", [*turns("07"), resend, reply(6, "Done.")])
    opened = files.open_binary

    def replaced_first(path: str | os.PathLike[str]) -> BinaryIO:
        if new.exists():
            new.replace(target)  # the file is replaced as the survey opens it
        return opened(path)

    monkeypatch.setattr(files, "open_binary", replaced_first)
    raced = events(target)
    expected = fresh(target, monkeypatch)
    assert not any("abandoned_branch" in event.extra for event in expected)
    assert raced == expected
    assert kept == []  # nothing kept for the old file was used
    assert events(target) == expected


def test_a_lone_surrogate_in_an_id_is_read_the_same_with_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: list[tuple[str, int]]
) -> None:
    """JSON allows "\\ud800" (a cut emoji), which msgpack's UTF-8 strings cannot hold: it
    is read as U+FFFD, so the file is read from its kept state as without a cache."""
    odd = prompt(3, "Hello", uuid="u3\ud800", agentId="x")
    target = write(tmp_path / "p" / "s.jsonl", [prompt(1, "Hi"), reply(2, "Yes"), odd])
    expected = fresh(target, monkeypatch)
    assert events(target) == expected
    assert events(target) == expected


def test_a_long_line_finished_while_the_survey_reads_it_leaves_nothing_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: list[tuple[str, int]]
) -> None:
    """An over-long line that ended the file when it was read, unfinished, and that the
    writer finished before the survey read on: its rest is not surveyed as a line of its
    own, so no state where the line is lost (here its uuid, at its end, and with it an
    abandoned branch's second line) is kept for the finished file."""
    monkeypatch.setattr(files, "READ_LINE_CAP", 300)
    monkeypatch.setattr(files, "KEEP_STRING", 20)

    def as_claude_writes(line: dict[str, object]) -> bytes:  # its uuid after the text
        line = {**line, "uuid": line.pop("uuid"), "timestamp": line.pop("timestamp")}
        return json.dumps(line).encode() + b"\n"

    lines = [
        prompt(1, "Plan"),
        reply(2, "Planned."),
        prompt(3, "Look"),
        reply(4, "x" * 5000),
        prompt(5, "Instead, skip it", parentUuid="u2"),
        reply(6, "Skipped."),
    ]
    data = b"".join(as_claude_writes(line) for line in lines)
    cut = data.index(b"x" * 3000)  # inside the long line
    target = tmp_path / "p" / "s.jsonl"
    target.parent.mkdir()
    target.write_bytes(data[:cut])
    iter_lines = files.iter_lines

    def finished_meanwhile(*args: Any, **kwargs: Any) -> Iterator[files.Line]:
        for line in iter_lines(*args, **kwargs):
            if not line.complete and target.stat().st_size < len(data):
                with open(target, "ab") as grow:
                    grow.write(data[cut:])  # the writer ends the line, and goes on
            yield line

    with monkeypatch.context() as patch:
        patch.setattr(files, "iter_lines", finished_meanwhile)
        events(target)
    assert target.read_bytes() == data
    expected = fresh(target, monkeypatch)
    (branch,) = [e.extra["abandoned_branch"] for e in expected if e.kind == "meta"]
    assert branch == {"uuid": "u3", "lines": 2, "subagents": 0}
    assert events(target) == expected
    assert kept == []  # the first read kept nothing: this one surveyed the whole file


def test_a_line_still_being_written_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: list[tuple[str, int]]
) -> None:
    source = DATA / "home/.claude/projects/-home-dev-shop/11111111-1111-4111-8111-111111111111.jsonl"  # fmt: skip
    data = source.read_bytes()
    target = tmp_path / "p" / source.name
    target.parent.mkdir()
    target.write_bytes(data[: len(data) // 2])  # ends mid-line
    events(target)
    target.write_bytes(data)
    assert events(target) == fresh(source, monkeypatch)
    assert kept == []  # nothing was kept for the half line: read whole


def test_entries_stay_within_the_budget_least_recently_used_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(passcache, "MIN_SIZE", 1)
    monkeypatch.setattr(passcache, "BUDGET", 4000)  # three entries
    transcripts = []
    for n in range(4):
        path = tmp_path / f"t{n}.jsonl"
        path.write_bytes(b"{}\n" * 10)
        transcripts.append(path)
    for n, path in enumerate(transcripts[:3]):
        passcache.save(path, "test", 30, bytes([n]) * 1000)
    assert passcache.load(transcripts[0], "test") == (30, b"\x00" * 1000)  # used now
    passcache.save(transcripts[3], "test", 30, b"\x03" * 1000)
    assert passcache.load(transcripts[1], "test") is None  # least recently used: gone
    assert passcache.load(transcripts[0], "test") is not None
    assert passcache.load(transcripts[3], "test") is not None


def test_an_entry_is_refused_for_another_file_a_shorter_one_or_its_own_damage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(passcache, "MIN_SIZE", 1)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n' * 100)
    passcache.save(path, "test", 800, b"state")
    assert passcache.load(path, "test") == (800, b"state")
    assert passcache.load(path, "other kind") is None
    with open(path, "ab") as grow:
        grow.write(b'{"b":2}\n')
    assert passcache.load(path, "test") == (800, b"state")  # grown: still good
    entry = passcache._entry(path, "test")
    damaged = bytearray(entry.read_bytes())
    damaged[-1] ^= 1
    entry.write_bytes(bytes(damaged))
    assert passcache.load(path, "test") is None
    passcache.save(path, "test", 800, b"state")
    replaced = tmp_path / "new.jsonl"
    replaced.write_bytes(path.read_bytes())
    replaced.replace(path)  # the same bytes in another file
    assert passcache.load(path, "test") is None
    passcache.save(path, "test", 800, b"state")
    path.write_bytes(b'{"a":1}\n' * 50)  # cut shorter
    assert passcache.load(path, "test") is None


def test_a_state_in_any_bytes_like_form_is_kept_as_its_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`load` gives a bytearray: keeping it again (or a view) keeps its bytes, as bytes
    would be; it was taken for a list of pieces, and its ints raised TypeError."""
    monkeypatch.setattr(passcache, "MIN_SIZE", 1)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n' * 100)
    for state in (bytearray(b"state"), memoryview(b"state")):
        passcache.save(path, "test", 800, state)
        assert passcache.load(path, "test") == (800, b"state")
        passcache.save(path, "test", 800, [memoryview(b"st"), bytearray(b"ate")])
        assert passcache.load(path, "test") == (800, b"state")


def test_nothing_is_kept_beside_the_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: list[tuple[str, int]]
) -> None:
    source = DATA / "home/.claude/projects/-home-dev-shop/11111111-1111-4111-8111-111111111111.jsonl"  # fmt: skip
    target = copy_session(source, tmp_path / "project")
    shutil.copy2(source, target)
    before = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    events(target)
    events(target)
    assert kept  # the second read took what the first kept, from elsewhere
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == before


def _peak(call: Callable[[], object]) -> tuple[int, object]:
    """What `call` held at most at once, beyond what was held before it; and its value."""
    import tracemalloc

    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        value = call()
        return tracemalloc.get_traced_memory()[1] - before, value
    finally:
        tracemalloc.stop()


def test_keeping_and_taking_up_the_survey_holds_it_once_more_at_most(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the survey's uuid graph grows with the lines (some 50 MB over 2 GB of transcript):
    # saving it for the next run, or taking it up, must not hold copies of it besides
    from sessdex.sources import _claude_read

    monkeypatch.setattr(passcache, "MIN_SIZE", 1)
    path = write(tmp_path / "s.jsonl", [reply(1, "ok")])
    state = _claude_read._PassState()
    for n in range(200_000):
        state.graph.place(f"{n:08d}-1111-2222-3333-444455556666", None, n, False, None)
    with open(path, "rb") as stream:
        stream.seek(0, os.SEEK_END)
        saving, _ = _peak(lambda: state.keep(path, "claude-survey", stream, 1))
    found = passcache.load(path, "claude-survey")
    assert found is not None
    size = len(found[1])  # the graph, as kept: some 9 MB
    del found

    def take_up() -> _claude_read._PassState:
        with open(path, "rb") as stream:
            taken = _claude_read._PassState.resumed(path, "claude-survey", stream)
        taken.graph.place("a line added since", None, 1, False, None)  # a lookup
        return taken

    taking, resumed = _peak(take_up)
    assert isinstance(resumed, _claude_read._PassState)
    assert len(resumed.graph.nodes) == 200_001
    assert saving <= 1.3 * size  # the entry written
    assert taking <= 2.3 * size  # the entry read, and the graph made of it
