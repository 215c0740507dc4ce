"""Amp's threads kept on its server: their per-thread logs, and what doctor says of them."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, merge
from sessdex.sources import Home, amp

DATA = Path(__file__).parent.parent / "data" / "amp"
LOGS = Path(".cache", "amp", "logs", "threads")
THREAD = "T-019e8cc2-ebc0-7a3c-8e21-5f0d6b9c2a47"  # on the server: a log only
CONTINUED = "T-5e1c9a70-2b1f-4c3e-9d7a-0f1e2d3c4b5a"  # a document, and a log since
BROKEN = "T-33333333-3333-7333-8333-333333333333"  # malformed: a log with broken lines


def sessions(home: Home, diagnostics: Diagnostics | None = None) -> dict[str, Session]:
    location = amp.locate(home)
    found: dict[str, list[Session]] = {}
    for path in amp.scan(location):
        for session in amp.parse(path, location, diagnostics or Diagnostics()):
            found.setdefault(session.id, []).append(session)
    return {key: merge(parts) for key, parts in found.items()}


def events(session: Session, diagnostics: Diagnostics | None = None) -> list[Event]:
    return list(amp.read(session, diagnostics or Diagnostics()))


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout


def test_a_thread_amp_keeps_on_its_server_is_listed_from_its_log() -> None:
    thread = sessions(Home.at(DATA / "home"))[THREAD]
    assert thread.path and thread.path.endswith(str(LOGS / f"{THREAD}.log"))
    assert thread.title == "Fix the flaky checkout test"
    # the id is a UUIDv7: it holds when the thread began
    assert thread.created == datetime(2026, 6, 3, 9, 14, 5, 120000, UTC)
    assert thread.updated == datetime(2026, 6, 3, 9, 14, 15, 644000, UTC)
    assert thread.extra == {"mode": "smart"}
    # the log names no folder; Amp keeps the thread on its server by id, so it is
    # continued from any folder (no `cd`: `resume` asks before running it where you are)
    plan = amp.resume(thread)
    assert thread.cwd is None and plan is not None and plan.cwd == ""
    assert plan.argv == ("amp", "threads", "continue", THREAD)


def test_its_log_shows_the_tools_the_agent_ran_and_says_where_the_rest_is() -> None:
    got = events(sessions(Home.at(DATA / "home"))[THREAD])
    assert [(e.kind, e.tool, e.is_error) for e in got] == [
        ("meta", None, False),
        ("tool_call", "Bash", False), ("tool_result", None, False),
        ("tool_call", "Read", False), ("tool_result", None, True),
        ("tool_call", "edit_file", False), ("tool_result", None, False),
        ("turn_end", None, False),
    ]  # fmt: skip
    assert got[0].text is not None and f"amp threads export {THREAD}" in got[0].text
    assert got[1].extra["input"] == {
        "cmd": "npm test -- checkout",
        "cwd": "/home/alex/code/shop",
    }
    assert got[2].call_id == got[1].call_id and got[2].text is None  # on the server
    assert got[4].text == "[error]"


def test_a_thread_continued_since_is_still_read_from_its_document() -> None:
    thread = sessions(Home.at(DATA / "home"))[CONTINUED]
    assert thread.path and thread.path.endswith(".json")
    assert thread.cwd == "/home/alex/code/shop"
    got = events(thread)
    assert [e.kind for e in got][:3] == ["user", "thinking", "assistant"]


def test_the_logs_follow_xdg_cache_home(tmp_path: Path) -> None:
    cache = tmp_path / "elsewhere"
    shutil.copytree(DATA / "home" / ".cache", cache)
    home = Home(tmp_path / "nobody", {"XDG_CACHE_HOME": str(cache)})
    assert sorted(sessions(home)) == [THREAD, CONTINUED]
    assert amp.locate(home).override == f"XDG_CACHE_HOME={cache}"


def test_a_broken_log_line_is_counted_never_shown() -> None:
    thread = sessions(Home.at(DATA / "malformed" / "home"))[BROKEN]
    diagnostics = Diagnostics()
    got = events(thread, diagnostics)
    assert [e.kind for e in got] == ["meta", "tool_call"]
    assert diagnostics.skipped == {"not JSON": 1, "not an object": 1}
    assert diagnostics.unknown == {"log.<no message>": 1}


# --- doctor -----------------------------------------------------------------------------


def _at(path: Path, day: str) -> None:
    moment = datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp()
    os.utime(path, (moment, moment))


def _home(tmp_path: Path, *, thread_written: str, log_written: str | None) -> Path:
    """A home whose Amp wrote one thread file, and (perhaps) one thread's log since."""
    home = tmp_path / "home"
    threads = home / ".local" / "share" / "amp" / "threads"
    threads.mkdir(parents=True)
    document = threads / "T-test-thread-1.json"
    shutil.copy(
        DATA / "home" / ".local/share/amp/threads/T-test-thread-1.json", document
    )
    _at(document, thread_written)
    if log_written is not None:
        (home / LOGS).mkdir(parents=True)
        log = home / LOGS / f"{THREAD}.log"
        shutil.copy(DATA / "home" / LOGS / f"{THREAD}.log", log)
        _at(log, log_written)
    return home


def test_doctor_says_amp_keeps_newer_threads_on_its_server(tmp_path: Path) -> None:
    home = _home(tmp_path, thread_written="2026-03-30", log_written="2026-06-03")
    code, out = invoke("doctor", "--app", "amp", "--home", str(home))
    assert code == 0
    assert "Amp (amp): 2 sessions" in out
    [note] = [line for line in out.splitlines() if line.startswith("  note ")]
    assert "Amp keeps newer threads on its server" in note
    assert "1 older, the newest of 2026-03-30" in note
    assert "Amp ran here on 2026-06-03" in note
    assert f"1 per-thread log in {home / LOGS}" in note
    assert "amp threads export <id>" in note
    code, out = invoke("doctor", "--app", "amp", "--json", "--home", str(home))
    [report] = json.loads(out)
    assert [n.split(":")[0] for n in report["notes"]] == [
        "Amp keeps newer threads on its server"
    ]


def test_doctor_says_so_when_amp_left_no_thread_file_at_all(tmp_path: Path) -> None:
    home = tmp_path / "home"
    data = home / ".local" / "share" / "amp"
    data.mkdir(parents=True)
    (data / "history.jsonl").write_text('{"text":"hello","cwd":"/home/alex"}\n')
    _at(data / "history.jsonl", "2026-05-02")
    code, out = invoke("doctor", "--app", "amp", "--home", str(home))
    assert code == 0
    assert "no thread file written since 2026-03-31 (none at all)" in out
    assert f"Amp ran here on 2026-05-02 ({data / 'history.jsonl'})" in out
    assert f"no per-thread log in {home / LOGS}" in out


def test_doctor_says_nothing_of_it_while_amp_still_writes_thread_files(
    tmp_path: Path,
) -> None:
    for thread_written, log_written in (
        ("2026-04-02", "2026-06-03"),  # an Amp that still writes them
        ("2026-03-30", None),  # no sign of Amp since
    ):
        home = _home(
            tmp_path / thread_written,
            thread_written=thread_written,
            log_written=log_written,
        )
        code, out = invoke("doctor", "--app", "amp", "--json", "--home", str(home))
        assert code == 0
        assert json.loads(out)[0]["notes"] == []


def test_a_log_named_oddly_is_listed_and_its_name_never_printed_as_a_command(
    tmp_path: Path,
) -> None:
    """A file name is any text: one holding shell words gets no `amp threads export` line;
    a UUIDv7 dated past year 9999 is listed, undated by its id."""
    folder = tmp_path / LOGS
    folder.mkdir(parents=True)
    record = {"@timestamp": "2026-06-03T09:14:05.120Z", "level": "info",
              "message": "[observer] onThreadTitle", "data": {"title": "Odd"}}  # fmt: skip
    for name in ("T-x;touch pwned $(id)", "T-ffffffff-ffff-7fff-bfff-ffffffffffff"):
        (folder / f"{name}.log").write_text(json.dumps(record) + "\n")
    found = sessions(Home.at(tmp_path))
    assert set(found) == {
        "T-x;touch pwned $(id)",
        "T-ffffffff-ffff-7fff-bfff-ffffffffffff",
    }
    odd = events(found["T-x;touch pwned $(id)"])[0]
    assert odd.kind == "meta" and odd.text and "export" not in odd.text
    far = found["T-ffffffff-ffff-7fff-bfff-ffffffffffff"]
    assert far.created == datetime(
        2026, 6, 3, 9, 14, 5, 120000, UTC
    )  # its first record
    plain = events(far)[0].text or ""
    assert plain.endswith(
        "`amp threads export T-ffffffff-ffff-7fff-bfff-ffffffffffff` prints the whole thread"
    )


def test_read_on_from_an_offset_an_idle_still_ends_the_turn_begun_before_it() -> None:
    """follow and watch read a log on from where they stopped: the agent was working
    before that point, so the idle after it ends the turn, as a whole read says."""
    thread = sessions(Home.at(DATA / "home"))[THREAD]
    assert thread.path is not None
    whole = events(thread)
    assert whole[-1].kind == "turn_end"
    data = Path(thread.path).read_bytes()
    # the start of a line past the working state: the last tool's run
    offset = data.rindex(b"\n", 0, data.index(b"executing tool: edit_file")) + 1
    later = list(amp.read(thread, Diagnostics(), offset=offset))
    assert later and later[-1].kind == "turn_end"
    assert later[-1].time == whole[-1].time
