"""Qwen Code 0.1.x's one-file chats, `tmp/<sha256 of the folder>/chats/session-*.json`.

The fixture is one session as 0.1.3's ChatRecordingService writes it: the main chat, and
the file a sub-agent run started under the same session id two minutes later.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import folders
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, _json_chat, qwen
from sessdex.sources.base import WholeRead

DATA = Path(__file__).parent.parent / "data" / "qwen"
HOME = DATA / "home"
LEGACY = "3f9c2a1e-5b7d-4c8e-9a10-2b3c4d5e6f70"
FOLDER = "/home/alex/code/legacy-cli"
PROJECT = ".qwen/tmp/1f5374d540a2971b67f21072a77fdfe529ecec71e6579e61bda90a285322e2ef"
MAIN = f"{PROJECT}/chats/session-2025-10-20T09-41-3f9c2a1e.json"
RUN = f"{PROJECT}/chats/session-2025-10-20T09-43-3f9c2a1e.json"  # the sub-agent's


def fragments(
    home: Path = HOME, diagnostics: Diagnostics | None = None
) -> dict[str, list[Session]]:
    location = qwen.locate(Home.at(home))
    found: dict[str, list[Session]] = {}
    for path in qwen.scan(location):
        for session in qwen.parse(path, location, diagnostics or Diagnostics()):
            found.setdefault(session.id, []).append(session)
    return found


def sessions(home: Path = HOME) -> dict[str, Session]:
    return {key: merge(parts) for key, parts in fragments(home).items()}


def read(home: Path = HOME, diagnostics: Diagnostics | None = None) -> list[Event]:
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    return list(qwen.read(sessions(home)[LEGACY], diagnostics))


def copy(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    return home


def test_a_session_lists_with_its_id_title_times_and_folder() -> None:
    """Id and title from the first file (the prompt without Qwen's <system-reminder>),
    times over all the session's files, the folder whose sha256 names tmp/<sha256>/."""
    session = sessions()[LEGACY]
    assert session.path == str(HOME / MAIN)
    assert session.title == "Why does test_login_redirect fail?"
    assert session.cwd == FOLDER  # trustedFolders.json names it; its sha256 matches
    assert session.created is not None and session.updated is not None
    assert session.created.isoformat() == "2025-10-20T09:42:05.116000+00:00"
    assert session.updated.isoformat() == "2025-10-20T09:45:31.904000+00:00"
    assert (session.model, session.branch, session.cli_version) == (
        "coder-model",
        None,
        None,
    )
    assert session.extra == {"format": "json", "chat_files": 2}
    assert session.bytes == (HOME / MAIN).stat().st_size + (HOME / RUN).stat().st_size
    # the sub-agent's file lists nothing itself: its session is the first file's
    location = qwen.locate(Home.at(HOME))
    assert qwen.parse(HOME / RUN, location, Diagnostics()) == []
    assert qwen.companion_of(str(HOME / RUN)) == str(HOME / MAIN)
    assert qwen.companion_of(str(HOME / MAIN)) is None


def test_a_folder_no_recorded_path_hashes_to_has_none(tmp_path: Path) -> None:
    home = copy(tmp_path)
    (home / ".qwen" / "trustedFolders.json").unlink()
    session = sessions(home)[LEGACY]
    assert session.path == str(home / MAIN)
    assert session.cwd is None  # never guessed


def test_the_files_of_a_session_are_shown_in_time_order() -> None:
    """The sub-agent's run sits where it happened, between the lead's replies, each
    change of file named; a turn ends at a reply a prompt follows, or at the last one."""
    found = read()
    assert [e.seq for e in found] == list(range(len(found)))
    assert [(e.kind, e.text) for e in found if e.kind != "usage"] == [
        ("user", "Why does test_login_redirect fail?"),
        ("assistant", "I'll have the test-runner agent run the failing test."),
        (
            "meta",
            "continued in chat file session-2025-10-20T09-43-3f9c2a1e.json (Qwen 0.1.x "
            "starts one after /clear, after a compression, and for each sub-agent run)",
        ),
        (
            "user",
            "Run pytest tests/test_login.py::test_login_redirect -q and report why it fails.",
        ),
        (
            "assistant",
            "1 failed: expected a redirect to /dashboard, got /home (app/views.py:42).",
        ),
        ("meta", "back in chat file session-2025-10-20T09-41-3f9c2a1e.json"),
        (
            "assistant",
            "test_login_redirect fails because the login view redirects to /home; the "
            "test expects /dashboard.",
        ),
        ("turn_end", None),
        ("user", "Fix it, and keep /home working for old bookmarks."),
        (
            "assistant",
            "Done: the login view now redirects to /dashboard, and /home redirects "
            "there too.",
        ),
        ("turn_end", None),
    ]
    times = [e.time for e in found if e.time is not None]
    assert times == sorted(times) and len(times) == len(found)


def test_each_reply_bills_its_tokens_once() -> None:
    """`input` includes `cached`, as Gemini's API counts it: it is taken out."""
    usage = Usage()
    for event in read():
        if event.usage is not None:
            usage += event.usage
    assert usage == Usage(
        input_tokens=(9120 + 9874 + 11502 + 6410) - (8960 + 9856),
        output_tokens=41 + 37 + 58 + 29,
        cache_read_tokens=8960 + 9856,
        model="coder-model",
    )


def test_the_prompt_log_lists_no_second_copy_of_a_session_with_a_chat(
    tmp_path: Path,
) -> None:
    """The log beside the chats names the session too: one session, read from the chat;
    with the chat files gone, the log's prompts are all that is left of it."""
    parts = fragments()[LEGACY]
    assert sorted(Path(str(p.path)).name for p in parts) == [
        f"logs.json#{LEGACY}",
        "session-2025-10-20T09-41-3f9c2a1e.json",
    ]
    listed = CliRunner().invoke(
        main, ["list", "--app", "qwen", "--json", "--home", str(HOME)]
    )
    assert listed.exit_code == 0
    rows = [s for s in json.loads(listed.stdout) if s["id"] == LEGACY]
    assert len(rows) == 1 and rows[0]["title"] == "Why does test_login_redirect fail?"
    home = copy(tmp_path)
    shutil.rmtree(home / PROJECT / "chats")
    alone = sessions(home)[LEGACY]
    assert alone.path is not None and alone.path.endswith(f"logs.json#{LEGACY}")
    assert alone.cwd == FOLDER
    assert [e.kind for e in qwen.read(alone, Diagnostics())] == ["meta", "user", "user"]


def test_resume_says_no_release_reopens_it() -> None:
    session = sessions()[LEGACY]
    assert qwen.resume(session) is None
    assert "no Qwen release reopens it" in (qwen.resume_refusal(session) or "")
    result = CliRunner().invoke(
        main, ["resume", LEGACY[:8], "--print", "--home", str(HOME)]
    )
    assert result.exit_code == 1
    assert "0.1.x had no --resume" in result.output


def test_a_cut_chat_is_listed_and_shows_the_messages_before_its_cut() -> None:
    """The malformed home's chat was cut short mid-write, inside its second message:
    listed from its head, its first prompt shown, the cut counted (it was skipped)."""
    diagnostics = Diagnostics()
    found = fragments(DATA / "malformed" / "home", diagnostics)
    session = merge(found[LEGACY])
    assert session.title == "Why does test_login_redirect fail?"
    assert session.created and session.created.isoformat().startswith(
        "2025-10-20T09:42"
    )
    assert diagnostics.skipped == {"truncated": 1}
    assert [path.endswith(".json") for path, _, _ in diagnostics.details] == [True]
    diagnostics = Diagnostics()
    shown = list(qwen.read(session, diagnostics))
    assert [e.text for e in shown if e.kind == "user"] == [
        "Why does test_login_redirect fail?"
    ]
    assert not [e for e in shown if e.kind == "assistant"]
    assert diagnostics.skipped == {"truncated": 1}


def test_a_later_file_cut_past_its_id_costs_only_itself(tmp_path: Path) -> None:
    home = copy(tmp_path)
    (home / RUN).write_text(
        '{\n  "sessionId": "3f9c2a1e-5b7d-4c8e-9a10-2b3c4d5e6f70",\n'
    )
    diagnostics = Diagnostics()
    parts = fragments(home, diagnostics)[LEGACY]
    assert diagnostics.skipped == {"truncated": 1}
    session = merge(parts)
    assert session.title == "Why does test_login_redirect fail?"
    assert session.extra["chat_files"] == 2  # the session's, holding nothing yet
    diagnostics = Diagnostics()
    found = list(qwen.read(session, diagnostics))
    assert diagnostics.skipped == {"truncated": 1}
    assert [e.kind for e in found].count("user") == 2
    assert not [e for e in found if e.kind == "meta"]


# Where the main chat is cut (just past these bytes), and how many of its messages end
# before the cut: inside the token counts nested in the first reply (9120 cut to 91),
# inside the second reply's text.
MAIN_CUTS = [(b'"input": 91', 1), (b'"test_login_redirect fails bec', 2)]


@pytest.mark.parametrize("alone", [True, False])
@pytest.mark.parametrize(("marker", "kept"), MAIN_CUTS)
def test_a_chat_cut_short_shows_its_messages_before_the_cut(
    tmp_path: Path, marker: bytes, kept: int, alone: bool
) -> None:
    """Cut short alone (parsed whole when it fits) or beside the sub-agent run's file
    (read side by side): listed with its title, folder and times, and shown as a chat
    of the messages before its cut, their tokens counted; the cut said."""
    home, reference = copy(tmp_path), tmp_path / "reference"
    shutil.copytree(HOME, reference)
    if alone:
        for folder in (home, reference):
            (folder / RUN).unlink()
    whole = sessions(home)[LEGACY]
    data = (home / MAIN).read_bytes()
    document = json.loads(data)
    document["messages"] = document["messages"][:kept]
    (reference / MAIN).write_text(json.dumps(document, indent=2))
    wanted = read(reference)
    (home / MAIN).write_bytes(data[: data.index(marker) + len(marker)])
    diagnostics = Diagnostics()
    session = merge(fragments(home, diagnostics)[LEGACY])
    assert diagnostics.skipped == {"truncated": 1}
    assert (session.title, session.cwd, session.created) == (
        whole.title,
        whole.cwd,
        whole.created,
    )
    diagnostics = Diagnostics()
    found = list(qwen.read(session, diagnostics))
    assert found == wanted
    assert [e.kind for e in found].count("assistant") == kept - 1 + (not alone)
    assert diagnostics.skipped == {"truncated": 1}


def test_an_unknown_message_type_is_counted_not_shown(tmp_path: Path) -> None:
    home = copy(tmp_path)
    document = json.loads((home / MAIN).read_text())
    document["messages"].insert(
        1,
        {"id": "x1", "timestamp": "2025-10-20T09:42:06.000Z", "type": "gemini",
         "content": "a model message of Gemini's, not Qwen's"},
    )  # fmt: skip
    (home / MAIN).write_text(json.dumps(document, indent=2))
    diagnostics = Diagnostics()
    found = read(home, diagnostics)
    assert diagnostics.unknown == {"message:gemini": 1}
    assert "a model message of Gemini's, not Qwen's" not in [e.text for e in found]
    assert [e.kind for e in found].count("assistant") == 4


def test_a_big_chat_is_listed_from_its_ends_and_read_in_pieces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past the limits, the same listing (what its ends hold; the prompt log titles it)
    and the same events, one message held at a time."""
    whole = sessions()[LEGACY]
    events = read()
    assert [e.kind for e in events].count("assistant") == 4
    monkeypatch.setattr(_json_chat, "LIST_LIMIT", 100)
    big = sessions()[LEGACY]
    assert big.path == str(HOME / MAIN)
    assert (big.id, big.cwd, big.created, big.updated, big.title) == (
        whole.id,
        whole.cwd,
        whole.created,
        whole.updated,
        whole.title,
    )
    monkeypatch.setattr(_json_chat, "READ_LIMIT", 100)
    diagnostics = Diagnostics()
    assert read(diagnostics=diagnostics) == events
    assert diagnostics.skipped_total == 0 and not diagnostics.problems


def test_the_index_lists_again_when_a_later_file_changes(tmp_path: Path) -> None:
    """A later file is the first one's companion: when it grows, the session's times do."""
    home = copy(tmp_path)
    runner = CliRunner()

    def updated() -> str:
        result = runner.invoke(
            main, ["list", "--app", "qwen", "--json", "--home", str(home)]
        )
        [row] = [s for s in json.loads(result.stdout) if s["id"] == LEGACY]
        return str(row["updated"])

    assert updated().startswith("2025-10-20T09:45:31")
    document = json.loads((home / RUN).read_text())
    document["lastUpdated"] = "2025-10-20T10:02:00.000Z"
    (home / RUN).write_text(json.dumps(document, indent=2))
    later = (home / RUN).stat().st_mtime_ns + 10**9
    os.utime(home / RUN, ns=(later, later))
    assert updated().startswith("2025-10-20T10:02:00")


def write_chat(
    chats: Path, session_id: str, minute: str, messages: list[dict[str, object]]
) -> Path:
    """A chat as 0.1.x writes it, named for its minute and its id's first 8 characters."""
    path = chats / f"session-{minute}-{session_id[:8]}.json"
    times = [str(m["timestamp"]) for m in messages] or [f"{minute[:13]}:00:00.000Z"]
    document = {"sessionId": session_id, "projectHash": "0" * 64,
                "startTime": times[0], "lastUpdated": times[-1], "messages": messages}  # fmt: skip
    path.write_text(json.dumps(document, indent=2))
    return path


def prompt(
    n: int, text: str, when: str = "2025-10-20T09:42:00.000Z"
) -> dict[str, object]:
    return {"id": f"m{n}", "timestamp": when, "type": "user", "content": text}


def test_a_folder_of_many_chats_is_listed_once_not_once_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every chat asks for its session's files (to list it, and for the index, whose first
    file it is): the folder is listed once for all of them, not once for each."""
    home = copy(tmp_path)
    chats = home / PROJECT / "chats"
    count = 120  # under the index's PARALLEL_FROM: every call is made in this process
    for n in range(count):
        session_id = f"{n:08x}-0000-4000-8000-000000000000"
        write_chat(chats, session_id, "2025-10-21T10-00", [prompt(n, f"task {n}")])
        if n % 3 == 0:  # a second file of the same session, after a /clear
            write_chat(chats, session_id, "2025-10-21T11-00", [prompt(n, "more")])
    old = chats.stat().st_mtime_ns - 10 * 10**9  # long settled, as a listing finds most
    os.utime(chats, ns=(old, old))
    listed: list[str] = []
    listing = folders.listing

    def counted(
        directory: str | Path, root: Path | None = None
    ) -> list[os.DirEntry[str]]:
        listed.append(os.fspath(directory))
        return listing(directory, root)

    monkeypatch.setattr(folders, "listing", counted)
    result = CliRunner().invoke(
        main, ["list", "--app", "qwen", "--json", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    rows = [s for s in json.loads(result.stdout) if s["id"].endswith("-000000000000")]
    assert len(rows) == count
    written = [p for p in chats.iterdir() if "3f9c2a1e" not in p.name]
    assert len(written) == count + count // 3
    assert sum(r["bytes"] for r in rows) == sum(p.stat().st_size for p in written)
    assert listed.count(str(chats)) <= 2  # the scan's own, and one grouping
    # a file gone: the index lists its session again, from the first file left
    (chats / "session-2025-10-21T10-00-00000003.json").unlink()  # the first of two
    (chats / "session-2025-10-21T11-00-00000006.json").unlink()  # the later of two
    os.utime(chats, ns=(old + 10**9, old + 10**9))
    listed.clear()
    result = CliRunner().invoke(
        main, ["list", "--app", "qwen", "--json", "--home", str(home)]
    )
    rows = [s for s in json.loads(result.stdout) if s["id"].endswith("-000000000000")]
    assert len(rows) == count
    written = [p for p in chats.iterdir() if "3f9c2a1e" not in p.name]
    assert sum(r["bytes"] for r in rows) == sum(p.stat().st_size for p in written)
    assert listed.count(str(chats)) <= 2


def test_a_session_of_many_files_is_read_holding_no_file_whole(tmp_path: Path) -> None:
    """All of a session's files are merged at once; each is read a message at a time, so
    showing it holds less than its largest file, where parsing each whole held them all."""
    import tracemalloc

    home = copy(tmp_path)
    chats = home / PROJECT / "chats"
    session_id = "bbbbbbbb-0000-4000-8000-000000000000"
    text = "a long reply " * 400  # about 5 KB
    # the lead's chat and five sub-agent runs, each started in its own minute
    for n in range(6):
        replies = [
            {"id": f"{n}-{k}", "timestamp": f"2025-10-22T1{n}:{k // 60:02d}:{k % 60:02d}.000Z",
             "type": "qwen", "content": f"{k}: {text}"}
            for k in range(200)
        ]  # fmt: skip
        write_chat(
            chats, session_id, f"2025-10-22T1{n}-00", [prompt(n, "go"), *replies]
        )
    written = sorted(chats.glob("session-2025-10-22T*.json"))
    largest = max(p.stat().st_size for p in written)
    assert sum(p.stat().st_size for p in written) > 5 * largest
    [session] = fragments(home)[session_id]
    tracemalloc.start()
    try:
        seen = sum(
            1 for e in qwen.read(session, Diagnostics()) if e.kind == "assistant"
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert seen == 6 * 200
    assert peak < largest


def test_two_sessions_whose_ids_start_alike_are_listed_and_shown_apart(
    tmp_path: Path,
) -> None:
    """Qwen names a file by its id's first 8 characters only: the id it starts with says
    whose it is, and each session lists from its own first file."""
    home = copy(tmp_path)
    chats = home / PROJECT / "chats"
    first = "aaaaaaaa-1111-4000-8000-000000000000"
    second = "aaaaaaaa-2222-4000-8000-000000000000"
    started = write_chat(chats, first, "2025-10-20T09-41",
                         [prompt(1, "first task", "2025-10-20T09:41:10.000Z")])  # fmt: skip
    other = write_chat(chats, second, "2025-10-21T10-00",
                       [prompt(2, "second task", "2025-10-21T10:00:10.000Z")])  # fmt: skip
    cleared = write_chat(chats, first, "2025-10-21T11-00",
                         [prompt(3, "after /clear", "2025-10-21T11:00:10.000Z")])  # fmt: skip
    assert qwen.companion_of(str(started)) is None
    assert qwen.companion_of(str(other)) is None
    assert qwen.companion_of(str(cleared)) == str(started)
    found = sessions(home)
    assert found[first].path == str(started)
    assert found[first].extra == {"format": "json", "chat_files": 2}
    assert found[second].path == str(other)
    assert found[second].title == "second task"
    shown = {
        key: [e.text for e in qwen.read(found[key], Diagnostics()) if e.kind == "user"]
        for key in (first, second)
    }
    assert shown == {first: ["first task", "after /clear"], second: ["second task"]}

    def listed() -> dict[str, tuple[str, int]]:
        result = CliRunner().invoke(
            main, ["list", "--app", "qwen", "--json", "--home", str(home)]
        )
        return {s["id"]: (s["title"], s["bytes"]) for s in json.loads(result.stdout)}

    size = started.stat().st_size
    assert listed()[first] == ("first task", size + cleared.stat().st_size)
    assert listed()[second] == ("second task", other.stat().st_size)
    result = CliRunner().invoke(
        main, ["show", "aaaaaaaa-2222", "--json", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    assert "second task" in result.stdout and "first task" not in result.stdout
    cleared.unlink()  # the index lists the session it was a file of again
    assert listed()[first] == ("first task", size)


TAILED = "7c2d4e6f-1111-4222-8333-444455556666"


def long_chat(home: Path, count: int) -> Path:
    """A 0.1.x chat of `count` messages: prompts (some two in a row, some with Qwen's
    <system-reminder> note), replies with text, thoughts and tokens, replies that only
    called tools (no text: no turn end), and a message of a type 0.1.x never wrote."""
    found: list[dict[str, object]] = []
    for n in range(count):
        stamp = f"2025-10-2{n // 36000 % 10}T{n // 3600 % 10 + 10}:{n // 60 % 60:02}:{n % 60:02}.000Z"
        if n % 11 == 10:
            found.append({"id": f"m{n}", "timestamp": stamp, "type": "info",
                          "content": f"note {n}"})  # fmt: skip
        elif n % 3 == 0 or n % 7 == 1:
            text = f'prompt {n} "quoted"\n    {{ brace'
            if n % 6 == 0:
                text = f"<system-reminder>\nctx {n}\n</system-reminder>\n{text}"
            found.append(prompt(n, text, stamp))
        else:
            found.append({"id": f"m{n}", "timestamp": stamp, "type": "qwen",
                          "content": "" if n % 5 == 0 else f"answer {n}",
                          "thoughts": [{"subject": "Plan", "description": f"t{n}",
                                        "timestamp": stamp}] if n % 4 == 2 else [],
                          "tokens": {"input": 100 + n, "output": 5, "cached": 50,
                                     "thoughts": 2, "tool": 0, "total": 157 + n}
                          if n % 2 else None,
                          "model": "qwen3-coder-plus"})  # fmt: skip
    chats = home / ".qwen" / "tmp" / ("ab" * 32) / "chats"
    chats.mkdir(parents=True, exist_ok=True)
    return write_chat(chats, TAILED, "2025-10-20T10-00", found)


def shown(events: list[Event]) -> list[tuple[object, ...]]:
    """What a view shows of each event: all but its number."""
    return [
        (e.kind, e.time, e.text, e.tool, e.call_id, e.is_error, e.usage, e.extra)
        for e in events
    ]


@pytest.mark.parametrize("count", [1, 2, 7, 30, 200, 2000])
def test_a_one_file_chats_tail_shows_what_its_whole_read_ends_with(
    tmp_path: Path, count: int
) -> None:
    from sessdex.transcripts import transcript

    long_chat(tmp_path, 600)
    home = Home.at(tmp_path)
    whole = list(transcript(home, TAILED[:8]).events)
    found = transcript(home, TAILED[:8], tail=count)
    assert shown(list(found.events)) == shown(whole[-count:])
    assert found.seq_relative == (count < 300)  # read from its end, not whole


def test_a_one_file_chats_tail_translates_only_its_last_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sessdex.sources import _gemini_messages
    from sessdex.transcripts import transcript

    long_chat(tmp_path, 3000)
    translated: list[object] = []
    events = _gemini_messages.item_events

    def counted(item: object, *args: object) -> object:
        translated.append(item)
        return events(item, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(_gemini_messages, "item_events", counted)
    found = transcript(Home.at(tmp_path), TAILED[:8], tail=20)
    assert len(list(found.events)) == 20
    assert len(translated) < 200  # of 3,000


def test_a_session_of_several_chat_files_is_read_whole_for_its_tail(
    tmp_path: Path,
) -> None:
    """Its files are merged by the times each held up to a message: the end of one file
    cannot say where its messages fall among the others'."""
    from sessdex.transcripts import transcript

    path = long_chat(tmp_path, 600)
    write_chat(path.parent, TAILED, "2025-10-20T10-05",
               [prompt(9000, "a sub-agent's task", "2025-10-20T10:05:30.000Z")])  # fmt: skip
    home = Home.at(tmp_path)
    whole = list(transcript(home, TAILED[:8]).events)
    assert any("continued in chat file" in (e.text or "") for e in whole)
    found = transcript(home, TAILED[:8], tail=30)
    assert shown(list(found.events)) == shown(whole[-30:])
    assert not found.seq_relative


def test_a_one_file_chats_last_rows_are_the_end_of_its_whole_read(
    tmp_path: Path,
) -> None:
    """Whatever message the rows start at (a prompt after a reply that ended its turn, a
    reply after one that only called tools, a note of an unknown type), their events
    are the whole read's last ones, the turn's end before a prompt included."""
    long_chat(tmp_path, 120)
    session = sessions(tmp_path)[TAILED]
    whole = shown(list(qwen.read(session, Diagnostics())))
    for rows in [*range(1, 40), 60, 118]:
        try:
            last = shown(list(qwen.read_last(session, Diagnostics(), rows)))
        except WholeRead:  # only where the message before the rows is the unknown one
            assert (120 - rows - 1) % 11 == 10, rows
            continue
        assert last == whole[-len(last) :], rows
        assert len(last) >= rows - rows // 11 - 1
