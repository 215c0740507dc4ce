"""Aider quirks: one Markdown log per repository, split into runs; repos found only where agents recorded them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from sessdex import files, folders
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage
from sessdex.sources import Home, aider
from tests.helpers import write_claude_session

DATA = Path(__file__).parent.parent / "data" / "aider"
REAL = DATA / "real" / "home"  # two runs of aider 0.86.2 (PROVENANCE.md)


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Aider prints local wall-clock times: pin the zone so the figures below are fixed."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def sessions(home: Home) -> list[Session]:
    location = aider.locate(home)
    found: list[Session] = []
    for path in aider.scan(location):
        found += aider.parse(path, location, Diagnostics())
    return found


def events(session: Session) -> list[Event]:
    return list(aider.read(session, Diagnostics()))


def history(folder: Path, *runs: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    text = "".join(
        f"\n# aider chat started at {run}\n\n#### hello from {folder.name}  \n\nhi\n\n"
        for run in runs
    )
    path = folder / aider.HISTORY
    path.write_text(text, encoding="utf-8")
    return path


def test_each_run_of_the_log_is_one_session() -> None:
    found = sessions(Home.at(DATA / "home"))
    assert [s.created for s in found] == [
        datetime(2025, 10, 20, 21, 49, 17, tzinfo=UTC),
        datetime(2025, 10, 20, 21, 49, 22, tzinfo=UTC),
        datetime(2025, 10, 24, 10, 15, 3, tzinfo=UTC),
    ]
    assert all(s.cwd == str(DATA / "home") for s in found)
    # the runs tile the file: each starts where the previous one ended
    ends = [s.extra["end"] for s in found]
    assert [s.extra["offset"] for s in found[1:]] == ends[:-1]
    assert ends[-1] is None and found[-1].updated is not None
    # an earlier run's last time in the log is its start
    assert found[0].updated == found[0].created


def test_title_skips_slash_commands_and_joins_multiline_input() -> None:
    last = sessions(Home.at(DATA / "home"))[-1]
    assert last.title == "What does estimate_tokens do with images? Keep it short."
    assert last.model == "anthropic/claude-sonnet-4-5"
    assert last.cli_version == "0.86.1"


def test_events_follow_the_markup() -> None:
    last = sessions(Home.at(DATA / "home"))[-1]
    got = events(last)
    assert [e.kind for e in got] == [
        "meta",  # the opening block: command line, version, models
        "user", "tool_call", "tool_result",  # /add and its output
        "user", "assistant", "usage", "turn_end",
        "user", "tool_call", "tool_result",  # /run
        "user", "assistant", "usage", "turn_end",
        "meta",  # applied edit, commit
    ]  # fmt: skip
    assert got[4].text == "What does estimate_tokens do with images?\nKeep it short."
    assert (
        got[9].tool == "/run"
        and got[9].extra["input"] == "pytest -q tests/test_tokens.py"
    )
    assert (
        got[10].call_id == got[9].call_id
        and got[10].text
        and got[10].text.startswith("3 passed")
    )
    assert got[0].time == last.created and got[0].time_estimated


def test_usage_totals_are_the_token_reports_with_cache_taken_out() -> None:
    last = sessions(Home.at(DATA / "home"))[-1]
    total = sum((e.usage for e in events(last) if e.usage), Usage())
    # "2.4k sent, 57 received" and "12k sent, 1.5k cache write, 8.2k cache hit, 212 received"
    assert (total.input_tokens, total.output_tokens) == (
        2400 + (12000 - 1500 - 8200),
        57 + 212,
    )
    assert (total.cache_read_tokens, total.cache_write_tokens) == (8200, 1500)
    assert total.model == "anthropic/claude-sonnet-4-5"


def test_repositories_come_only_from_recorded_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / ".aider").mkdir(parents=True)
    claude_repo, gemini_repo, codex_repo = (
        tmp_path / "w" / "api",
        tmp_path / "w" / "web",
        tmp_path / "w" / "cli",
    )
    (claude_repo / ".git").mkdir(parents=True)
    history(
        claude_repo, "2026-01-02 09:00:00"
    )  # recorded as a subfolder: aider logs at the git root
    history(gemini_repo, "2026-01-03 09:00:00", "2026-01-03 10:00:00")
    history(codex_repo, "2026-01-04 09:00:00")
    history(tmp_path / "w" / "unrecorded", "2026-01-05 09:00:00")
    history(
        home / "deep" / "inside" / "home", "2026-01-06 09:00:00"
    )  # not recorded either
    # Claude Code's transcripts name their folders (never its ~/.claude.json: it can
    # hold the account's API key)
    write_claude_session(
        home, "c1aude00-0000-4000-8000-000000000001", str(claude_repo / "src")
    )
    (home / ".claude.json").write_bytes(
        orjson.dumps({"projects": {str(tmp_path / "w" / "unrecorded"): {}}})
    )
    (home / ".gemini").mkdir()
    (home / ".gemini" / "projects.json").write_bytes(
        orjson.dumps({"projects": {str(gemini_repo): "web"}})
    )
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{codex_repo}"]\ntrust_level = "trusted"\n'
    )

    def no_crawl(*args: object, **kwargs: object) -> None:
        raise AssertionError("aider's scan must not list directories")

    listed: list[str] = []
    scandir = os.scandir

    def only_claudes_projects(path: str | os.PathLike[str] = ".") -> object:
        listed.append(os.fspath(path))
        return scandir(path)

    monkeypatch.setattr(os, "walk", no_crawl)
    monkeypatch.setattr(os, "scandir", only_claudes_projects)
    opened: list[str] = []
    real_open = open

    real_os_open = os.open

    def watched_open(file: object, *args: object, **kwargs: object) -> object:
        if not isinstance(file, int):  # a descriptor: named by os.open below
            opened.append(os.fspath(file))  # type: ignore[arg-type]
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    def watched_os_open(path: object, *args: object, **kwargs: object) -> int:
        opened.append(os.fspath(path))  # type: ignore[arg-type]
        return real_os_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("builtins.open", watched_open)
    monkeypatch.setattr(os, "open", watched_os_open)
    found = sessions(Home.at(home))
    claudes = (str(home / ".claude" / "projects"), str(home / ".config" / "claude"))
    assert listed and all(path.startswith(claudes) for path in listed), listed
    assert str(home / ".claude.json") not in opened
    assert sorted({s.cwd for s in found}) == sorted(
        str(p) for p in (claude_repo, gemini_repo, codex_repo)
    )
    assert len(found) == 4
    assert {s.title for s in found} == {
        "hello from api",
        "hello from web",
        "hello from cli",
    }


def test_a_copied_windows_homes_recorded_folders_are_found_below_the_copy(
    tmp_path: Path,
) -> None:
    """A Windows home copied to this system: the C:\\ folders other agents recorded
    are no paths here, and are looked for below the copy (they were passed over)."""
    home = tmp_path / "backup" / "me"
    (home / ".aider").mkdir(parents=True)
    api, web, cli = home / "code" / "api", home / "code" / "web", home / "code" / "cli"
    (api / ".git").mkdir(parents=True)
    (api / "src").mkdir()
    history(api, "2026-01-02 09:00:00")  # recorded as a subfolder: logged at its root
    history(web, "2026-01-03 09:00:00")
    history(cli, "2026-01-04 09:00:00")
    write_claude_session(
        home, "c1aude00-0000-4000-8000-000000000001", "C:\\Users\\me\\code\\api\\src"
    )
    (home / ".gemini").mkdir()
    (home / ".gemini" / "projects.json").write_bytes(
        orjson.dumps(
            {"projects": {"C:\\Users\\me\\code\\web": "web", "D:\\gone\\x\\y": "y"}}
        )
    )
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(
        "[projects.'c:/Users/me/code/cli']\ntrust_level = \"trusted\"\n"
        "[projects.'C:\\Users\\me\\code\\web']\ntrust_level = \"trusted\"\n"
    )
    found = sessions(Home.at(home))
    assert sorted(s.cwd or "" for s in found) == [str(api), str(cli), str(web)]
    assert {s.title for s in found} == {
        "hello from api",
        "hello from web",
        "hello from cli",
    }


def test_ids_survive_moving_the_home(tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere" / "home"
    copy.mkdir(parents=True)
    (copy / ".aider").mkdir()
    (copy / aider.HISTORY).write_bytes((DATA / "home" / aider.HISTORY).read_bytes())
    assert [s.id for s in sessions(Home.at(copy))] == [
        s.id for s in sessions(Home.at(DATA / "home"))
    ]


def test_an_absolute_history_file_override_is_read_alone(tmp_path: Path) -> None:
    target = DATA / "home" / aider.HISTORY
    home = Home(tmp_path / "nobody", {"AIDER_CHAT_HISTORY_FILE": str(target)})
    found = sessions(home)
    assert len(found) == 3 and all(s.cwd is None for s in found)
    assert aider.resume(found[-1]) is None  # no known folder to reopen it in


def test_a_relative_override_names_the_file_in_each_repository(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".aider").mkdir(parents=True)
    (home / "notes").mkdir()
    (home / "notes" / "aider.md").write_text(
        "\n# aider chat started at 2026-02-01 08:00:00\n\n#### hi  \n"
    )
    history(
        home, "2026-02-02 08:00:00"
    )  # the default name is not what this user's aider writes
    found = sessions(Home(home, {"AIDER_CHAT_HISTORY_FILE": "notes/aider.md"}))
    assert [s.title for s in found] == ["hi"]


def test_resume_reloads_the_whole_log_in_the_repository() -> None:
    last = sessions(Home.at(DATA / "home"))[-1]
    plan = aider.resume(last)
    assert plan is not None
    assert plan.argv == (
        "aider",
        "--restore-chat-history",
        "--chat-history-file",
        str(DATA / "home" / aider.HISTORY),
        "--model",
        "anthropic/claude-sonnet-4-5",
    )
    assert plan.cwd == str(DATA / "home") and plan.program == "aider"
    assert plan.notes and not plan.withheld
    # the thinking budget or reasoning effort aider announced with the model is kept
    # (`, 32k think tokens`, `, reasoning high`: base_coder.py get_announcements)
    first = sessions(Home.at(DATA / "home"))[1]
    assert first.effort == "thinking:32k"
    plan = aider.resume(first)
    assert plan is not None and plan.argv[-2:] == ("--thinking-tokens", "32k")
    # and so it is printed: the shared check passes a one-word effort on (it left
    # "32k think tokens" out, as a value that is not a plain name)
    from sessdex import api

    check = api.check_resume(Home.at(DATA / "home"), first.id)
    assert check.plan.argv[-2:] == ("--thinking-tokens", "32k")
    assert not [w for w in check.warnings if "left out" in w]
    reasoning = replace(last, effort="high")
    plan = aider.resume(reasoning)
    assert plan is not None and plan.argv[-2:] == ("--reasoning-effort", "high")


def test_tail_offset_starts_inside_the_run() -> None:
    last = sessions(Home.at(DATA / "home"))[-1]
    data = (DATA / "home" / aider.HISTORY).read_bytes()
    offset = data.index(b"#### Make PDFs")
    got = list(aider.read(last, Diagnostics(), offset=offset - 3))
    assert got[0].kind == "user" and got[0].text == "Make PDFs count the same way."


def test_a_cost_on_a_line_of_its_own_belongs_to_the_usage_report(
    tmp_path: Path,
) -> None:
    """With both cache writes and hits aider prints the cost on a second line, which
    only the first line's `> ` quotes (base_coder.py: `sep = "\\n"`)."""
    path = tmp_path / aider.HISTORY
    path.write_text(
        "\n# aider chat started at 2026-11-20 10:00:00\n\n#### fix the retry loop  \n\n"
        "Done: the loop now backs off.\n\n"
        "> Tokens: 12k sent, 2.1k cache write, 9.5k cache hit, 210 received.\r\n"
        "Cost: $0.0098 message, $0.0098 session.  \n",
        encoding="utf-8",
    )
    [session] = sessions(
        Home(tmp_path / "nobody", {"AIDER_CHAT_HISTORY_FILE": str(path)})
    )
    found = events(session)
    assert [e.text for e in found if e.kind == "assistant"] == [
        "Done: the loop now backs off."
    ]
    [usage] = [e for e in found if e.kind == "usage"]
    assert usage.extra["cost_usd"] == 0.0098
    assert usage.usage == Usage(400, 210, 9500, 2100)


def test_usage_takes_the_cost_aider_logged(tmp_path: Path) -> None:
    """aider prices each message from its exact counts (the logged ones are rounded), for
    models no price list names too: `usage` shows that cost, not "unpriced"; a report
    without a cost is priced from its tokens as before (here: none, so unpriced)."""
    from sessdex import api

    path = tmp_path / aider.HISTORY
    path.write_text(
        "\n# aider chat started at 2026-11-20 10:00:00\n\n"
        "> Model: openai/house-model-7 with whole edit format\n\n"
        "#### fix the retry loop  \n\nDone.\n\n"
        "> Tokens: 12k sent, 210 received. Cost: $0.0098 message, $0.0098 session.\n",
        encoding="utf-8",
    )
    home = Home(tmp_path / "nobody", {"AIDER_CHAT_HISTORY_FILE": str(path)})
    [row] = api.usage_report(home, "daily", apps=["aider"]).rows
    assert (row.input_tokens, row.output_tokens, row.cost_usd) == (12000, 210, 0.0098)
    with path.open("a", encoding="utf-8") as log:
        log.write(
            "\n#### and the docs  \n\nDone too.\n\n> Tokens: 3.1k sent, 90 received.\n"
        )
    [row] = api.usage_report(home, "daily", apps=["aider"]).rows
    assert (row.input_tokens, row.cost_usd) == (15100, None)


def test_token_reports_of_older_aider_versions(tmp_path: Path) -> None:
    """0.46 to 0.51 printed whole counts with commas and, until 0.49, a cost per
    `request`; before 0.46 a reply that was not streamed was reported as `N prompt
    tokens, N completion tokens, $X cost` (base_coder.py at those tags)."""
    path = tmp_path / aider.HISTORY
    path.write_text(
        "\n# aider chat started at 2024-08-01 10:00:00\n\n"
        "> Model: claude-3-5-sonnet-20240620 with diff edit format  \n\n"
        "#### fix the retry loop  \n\nDone.\n\n"
        "> Tokens: 12,345 sent, 1,234 received. Cost: $0.06 request, $0.06 session.  \n\n"
        "#### and the cache  \n\nDone too.\n\n"
        "> Tokens: 14,000 sent, 2,100 cache write, 9,500 cache hit, 210 received.  \n"
        "Cost: $0.01 message, $0.07 session.  \n\n"
        "#### and once more  \n\nOk.\n\n"
        "> 2345 prompt tokens, 56 completion tokens, $0.007875 cost  \n",
        encoding="utf-8",
    )
    [session] = sessions(
        Home(tmp_path / "nobody", {"AIDER_CHAT_HISTORY_FILE": str(path)})
    )
    found = [e for e in events(session) if e.kind == "usage"]
    assert [e.usage for e in found] == [
        Usage(12345, 1234, model="claude-3-5-sonnet-20240620"),
        Usage(2400, 210, 9500, 2100, model="claude-3-5-sonnet-20240620"),
        Usage(2345, 56, model="claude-3-5-sonnet-20240620"),
    ]
    assert [e.extra["cost_usd"] for e in found] == [0.06, 0.01, 0.007875]


def test_the_main_model_of_a_models_line(tmp_path: Path) -> None:
    """From 0.30 until 0.60 a run with a weak model of its own announced both on one
    `Models:` line (base_coder.py get_announcements at those tags)."""
    path = tmp_path / aider.HISTORY
    path.write_text(
        "\n# aider chat started at 2024-08-01 10:00:00\n\n> Aider v0.50.1  \n"
        "> Models: claude-3-5-sonnet-20240620 with \u267e\ufe0f diff edit format, weak model "
        "claude-3-haiku-20240307  \n\n#### fix the retry loop  \n\nDone.\n\n"
        "> Tokens: 2,345 sent, 56 received.  \n",
        encoding="utf-8",
    )
    [session] = sessions(
        Home(tmp_path / "nobody", {"AIDER_CHAT_HISTORY_FILE": str(path)})
    )
    assert session.model == "claude-3-5-sonnet-20240620"
    [usage] = [e for e in events(session) if e.kind == "usage"]
    assert usage.usage is not None
    assert usage.usage.model == "claude-3-5-sonnet-20240620"


def test_a_history_file_named_in_aider_conf_yml_is_found(tmp_path: Path) -> None:
    """aider reads every option from `.aider.conf.yml` (home, git root, working folder),
    `chat-history-file` included; the session's folder is the repository, not `.aider/`."""
    home = tmp_path / "home"
    (home / ".aider").mkdir(parents=True)
    repo = tmp_path / "w" / "api"
    (repo / ".git").mkdir(parents=True)
    (repo / ".aider").mkdir()
    log = repo / ".aider" / "chat.md"
    log.write_text(
        "\n# aider chat started at 2026-01-02 09:00:00\n\n#### hello  \n\nhi\n"
    )
    write_claude_session(home, "c1aude00-0000-4000-8000-000000000002", str(repo))
    assert sessions(Home.at(home)) == []
    (repo / ".aider.conf.yml").write_text(
        "model: sonnet\nchat-history-file: .aider/chat.md  # here\n"
    )
    [found] = sessions(Home.at(home))
    assert (found.title, found.cwd) == ("hello", str(repo))
    (repo / ".aider.conf.yml").unlink()
    (home / ".aider.conf.yml").write_text('chat-history-file: ".aider/chat.md"\n')
    [found] = sessions(Home.at(home))
    assert found.cwd == str(repo)


def test_a_line_too_long_to_read_is_passed_over_and_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pasted blob on one line longer than READ_LINE_CAP is not held: the rest of the
    run still reads, and the skipped line is counted for --verbose and doctor."""
    monkeypatch.setattr(files, "READ_LINE_CAP", 1000)
    path = tmp_path / aider.HISTORY
    path.write_text(
        "\n# aider chat started at 2026-11-20 10:00:00\n\n#### look at this  \n\n"
        + "x" * 5000
        + "\n\nDone: read it.\n",
        encoding="utf-8",
    )
    [session] = sessions(
        Home(tmp_path / "nobody", {"AIDER_CHAT_HISTORY_FILE": str(path)})
    )
    diagnostics = Diagnostics()
    found = list(aider.read(session, diagnostics))
    assert [e.text for e in found if e.kind == "assistant"] == ["Done: read it."]
    assert diagnostics.details == [(str(path), 6, "too long")]


def test_streamed_reasoning_is_thinking_not_the_answer(tmp_path: Path) -> None:
    """Streaming (the default), Aider writes the model's reasoning into the history ahead
    of the answer, inside its own tag (base_coder.py, reasoning_tags.py REASONING_TAG); a
    stream cut inside it leaves the tag open."""
    tag = "thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b"
    path = tmp_path / aider.HISTORY
    path.write_text(
        "\n# aider chat started at 2026-11-20 10:00:00\n\n#### Why is it slow?  \n\n"
        f"<{tag}>\n\nThe user asks about speed. Check the loop.\n\n</{tag}>\n\n"
        "The loop re-reads the file each time.\n\n"
        "#### and now?  \n\n"
        f"<{tag}>\n\nStill thinking when the user pressed Ctrl-C\n",
        encoding="utf-8",
    )
    [session] = sessions(
        Home(tmp_path / "nobody", {"AIDER_CHAT_HISTORY_FILE": str(path)})
    )
    said = [(e.kind, e.text) for e in events(session) if e.kind != "user"]
    assert said == [
        ("thinking", "The user asks about speed. Check the loop."),
        ("assistant", "The loop re-reads the file each time."),
        ("thinking", "Still thinking when the user pressed Ctrl-C"),
    ]


def test_a_real_log_lists_every_run_with_both_times() -> None:
    """`list --json` gives each run a last-update time, the earlier one too (it was null)."""
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", "list", "--json", "--home", str(REAL)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    records = sorted(orjson.loads(done.stdout), key=lambda r: r["created"])
    assert [(r["created"], r["updated"]) for r in records[:1]] == [
        ("2026-12-02T08:06:25.000Z", "2026-12-02T08:06:25.000Z")
    ]
    assert len(records) == 2 and records[1]["updated"] >= records[1]["created"]
    assert [r["title"] for r in records] == [
        "SCENARIO=basic Please run the greeting shell command and tell me what it printed.",
        "SCENARIO=basic Please run the greeting command again, thinking harder.",
    ]
    assert {(r["model"], r["cli_version"]) for r in records} == {
        ("openai/mock-model", "0.86.2")
    }


def test_a_real_run_keeps_its_reasoning_effort_for_resume() -> None:
    """aider announces `--reasoning-effort high` as `, reasoning high` after the model."""
    first, second = sessions(Home.at(REAL))
    assert (first.effort, second.effort) == (None, "high")
    plan = aider.resume(second)
    assert plan is not None
    assert plan.argv == (
        "aider", "--restore-chat-history", "--chat-history-file",
        str(REAL / aider.HISTORY), "--model", "openai/mock-model",
        "--reasoning-effort", "high",
    )  # fmt: skip
    report = [e for e in events(first) if e.kind == "usage"]
    assert [
        (e.usage.input_tokens, e.usage.output_tokens) for e in report if e.usage
    ] == [(791, 10)]
    assert report[0].extra["cost_usd"] == 0.00081


def test_a_real_runs_usage_counts_on_the_day_it_ran() -> None:
    """`usage` put every aider token report under "(no time)": aider logs no time per
    message, so a report now takes its run's start."""
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", "usage", "--json", "--home", str(REAL)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, "TZ": "UTC"},
    )
    rows = orjson.loads(done.stdout)
    assert [(r["key"], r["responses"], r["output_tokens"]) for r in rows] == [
        ("2026-12-02", 2, 20)
    ]


def test_a_thinking_budget_that_reads_as_an_option_is_left_out(tmp_path: Path) -> None:
    """`, --yes-always think tokens` in a history line was passed on as
    `--thinking-tokens --yes-always`: aider would have read an option of the file's."""
    path = tmp_path / aider.HISTORY
    path.write_text(
        "\n# aider chat started at 2024-08-01 10:00:00\n\n> Aider v0.86.1  \n"
        "> Main model: anthropic/claude-sonnet-4-5 with diff edit format, "
        "--yes-always think tokens  \n\n#### fix it  \n\nDone.\n",
        encoding="utf-8",
    )
    home = Home(tmp_path / "nobody", {"AIDER_CHAT_HISTORY_FILE": str(path)})
    [session] = sessions(home)
    plan = aider.resume(replace(session, cwd=str(tmp_path)))
    assert plan is not None
    assert plan.argv == (
        "aider", "--restore-chat-history", "--chat-history-file", str(path),
        "--model", "anthropic/claude-sonnet-4-5",
    )  # fmt: skip
    assert any("'--yes-always'" in note for note in plan.notes)


def test_a_run_dated_past_what_utc_holds_loses_its_time_not_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real log with its second run's heading at a year's end that UTC cannot hold."""
    home = tmp_path / "home"
    shutil.copytree(REAL, home)
    text = (REAL / aider.HISTORY).read_text(encoding="utf-8")
    second = "# aider chat started at 2026-12-02 08:06:45"
    assert second in text
    (home / aider.HISTORY).write_text(
        text.replace(second, "# aider chat started at 9999-12-31 23:00:00"),
        encoding="utf-8",
    )
    monkeypatch.setenv("TZ", "America/New_York")  # 9999-12-31 23:00 is 10000 in UTC
    time.tzset()
    found = sorted(sessions(Home.at(home)), key=lambda s: s.created is None)
    assert [s.title for s in found] == [
        "SCENARIO=basic Please run the greeting shell command and tell me what it printed.",
        "SCENARIO=basic Please run the greeting command again, thinking harder.",
    ]
    assert found[0].created is not None  # the first run keeps its time
    assert found[1].created is None
    assert [e.text for e in events(found[1]) if e.kind == "user"] == [
        "SCENARIO=basic Please run the greeting command again, thinking harder."
    ]


def test_resume_restores_the_log_the_session_is_in_not_the_one_aider_would_pick(
    tmp_path: Path,
) -> None:
    """A repository whose `.aider.conf.yml` names `chat.md` and that still holds the
    older `.aider.chat.history.md`: both logs are listed, and a run of the older one
    resumed as `aider --restore-chat-history` reloaded `chat.md` (the file aider's
    config picks), another conversation. The command names the session's own log."""
    home = tmp_path / "home"
    (home / ".aider").mkdir(parents=True)
    repo = tmp_path / "w" / "api"
    (repo / ".git").mkdir(parents=True)
    older = history(repo, "2026-01-01 09:00:00")
    (repo / "chat.md").write_text(
        "\n# aider chat started at 2026-01-02 09:00:00\n\n#### newer  \n\nhi\n"
    )
    (repo / ".aider.conf.yml").write_text("chat-history-file: chat.md\n")
    write_claude_session(home, "c1aude00-0000-4000-8000-000000000003", str(repo))
    by_file = {s.path: s for s in sessions(Home.at(home))}
    assert set(by_file) == {str(older), str(repo / "chat.md")}
    for path, session in by_file.items():
        plan = aider.resume(session)
        assert plan is not None and plan.cwd == str(repo)
        assert plan.argv == (
            "aider", "--restore-chat-history", "--chat-history-file", path
        )  # fmt: skip


# --- bytes that are not UTF-8 ------------------------------------------------------------


def _cli(*args: str) -> tuple[str, str]:
    """(stdout, stderr) of a sessdex command that succeeded."""
    from click.testing import CliRunner

    from sessdex.cli import main

    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout, result.stderr


def _raw_home(tmp_path: Path, data: bytes) -> tuple[Path, Path]:
    """A home with aider's caches folder and a chat log of these bytes."""
    home = tmp_path / "home"
    (home / ".aider").mkdir(parents=True)
    path = home / aider.HISTORY
    path.write_bytes(data)
    return home, path


_RUN_ONE = b"\n# aider chat started at 2026-11-20 10:00:00\n\n#### first  \n\nfine\n"
_RUN_TWO = b"\n#### second  \n\nalso fine\n"


def test_a_line_that_is_not_utf8_is_shown_with_replacements_and_counted(
    tmp_path: Path,
) -> None:
    """A reply holding a Latin-1 byte (aider run with `--encoding latin-1`, or a flipped
    byte): the text is shown with U+FFFD, and the line is counted as read with damage
    (not as skipped: it is shown) and named, never its content, by --verbose and
    doctor."""
    home, path = _raw_home(
        tmp_path,
        b"\n# aider chat started at 2026-11-20 10:00:00\n\n#### r\xe9sum\xe9 please  \n\n"
        b"caf\xe9 au lait\n",
    )
    out, _ = _cli("list", "--json", "--home", str(home))
    [row] = orjson.loads(out)
    assert row["title"] == "r\ufffdsum\ufffd please"
    out, err = _cli("show", row["id"], "--json", "--verbose", "--home", str(home))
    said = [e["text"] for e in orjson.loads(out) if e["kind"] == "assistant"]
    assert said == ["caf\ufffd au lait"]
    assert f"{path}:4: not UTF-8" in err and f"{path}:6: not UTF-8" in err
    assert "caf" not in err
    assert "read 2 lines with bytes that are not UTF-8 (shown as \ufffd)" in err
    assert "skipped" not in err and "unreadable" not in err
    out, _ = _cli("doctor", "--app", "aider", "--json", "--home", str(home))
    [report] = orjson.loads(out)
    assert report["skipped_lines"] == {} and report["skipped_at"] == []
    assert report["damaged_lines"] == {"not UTF-8 (shown as \ufffd)": 2}
    assert [(at["file"], at["line"]) for at in report["damaged_at"]] == [
        (str(path), 4),
        (str(path), 6),
    ]


@pytest.mark.parametrize(
    ("header", "started"),
    [  # inside the time: not guessed at
        (b"# aider chat started at 2026-11-20 11:\xc3(\xff00:00", None),
        # where its space was: the time aider wrote still ends the line
        (
            b"# aider chat started at\xff 2026-11-20 11:00:00\r",
            datetime(2026, 11, 20, 11, tzinfo=UTC),
        ),
    ],
)
def test_a_run_start_damaged_after_its_words_still_starts_a_run(
    tmp_path: Path, header: bytes, started: datetime | None
) -> None:
    """Aider writes `# aider chat started at <time>` in ASCII (io.py): a line that still
    opens with those words is a run's start."""
    home, path = _raw_home(tmp_path, _RUN_ONE + b"\n" + header + b"\n" + _RUN_TWO)
    location = aider.locate(Home.at(home))
    diagnostics = Diagnostics()
    first, second = aider.parse(path, location, diagnostics)
    assert (first.title, second.title) == ("first", "second")
    assert first.created is not None and second.created == started
    # once, not also as a bad time; read, not skipped
    assert diagnostics.skipped == {}
    assert diagnostics.damaged == {"not UTF-8 (shown as \ufffd)": 1}
    got = events(second)
    assert [(e.kind, e.text) for e in got] == [
        ("user", "second"),
        ("assistant", "also fine"),
    ]


def test_a_run_start_damaged_in_its_words_is_said_not_guessed(
    tmp_path: Path,
) -> None:
    """A run's start whose words are damaged cannot be told from a reply's line: the two
    runs read as one, and doctor says that this line may have been a run's start."""
    home, path = _raw_home(
        tmp_path,
        _RUN_ONE
        + b"\n# aider chat st\xc3(\xffarted at 2026-11-20 11:00:00\n"
        + _RUN_TWO,
    )
    out, _ = _cli("list", "--json", "--home", str(home))
    assert len(orjson.loads(out)) == 1
    out, _ = _cli("doctor", "--app", "aider", "--json", "--home", str(home))
    [report] = orjson.loads(out)
    [(reason, count)] = report["damaged_lines"].items()
    assert count == 1 and reason.startswith("not UTF-8")
    assert "run" in reason and "one" in reason
    out, err = _cli("doctor", "--app", "aider", "-v", "--home", str(home))
    assert f"{path}:8: {reason}" in out + err


def test_a_log_cut_inside_a_character_is_unfinished_not_damaged(
    tmp_path: Path,
) -> None:
    """A log whose last line stops inside a UTF-8 character was cut, as a JSON-lines
    file's unfinished last line is: noted, not counted as an unreadable line."""
    home, path = _raw_home(tmp_path, _RUN_ONE + b"\xc3\xa9t\xc3")
    diagnostics = Diagnostics()
    [session] = aider.parse(path, aider.locate(Home.at(home)), diagnostics)
    assert diagnostics.skipped_total == 0 and diagnostics.unfinished == {str(path): 4}
    assert diagnostics.damaged_total == 0
    diagnostics = Diagnostics()
    said = [e.text for e in aider.read(session, diagnostics) if e.kind == "assistant"]
    assert said == ["fine\n\u00e9t\ufffd"]
    assert diagnostics.skipped_total == 0 and diagnostics.damaged_total == 0


@pytest.mark.parametrize(
    ("header", "runs", "reason"),
    [  # a crash's zero bytes over the line, after aider's words and inside them
        (b"# aider chat started at 2026-11-20 11:0\x000:00", 2, "NUL bytes"),
        (b"# aider ch\x00at started at 2026-11-20 11:00:00", 1, "NUL bytes, maybe"),
    ],
)
def test_a_run_start_holding_nul_bytes_is_damage_said_as_such(
    tmp_path: Path, header: bytes, runs: int, reason: str
) -> None:
    """Aider never writes a NUL byte; one in its run's first line is damage, told as a
    byte that is not UTF-8 is: the run starts while aider's words are whole, and
    otherwise doctor says two runs may read as one."""
    home, path = _raw_home(tmp_path, _RUN_ONE + b"\n" + header + b"\n" + _RUN_TWO)
    diagnostics = Diagnostics()
    found = aider.parse(path, aider.locate(Home.at(home)), diagnostics)
    assert len(found) == runs and found[-1].title == (
        "second" if runs == 2 else "first"
    )
    [(line, said)] = [(line, why) for _, line, why in diagnostics.details]
    assert line == 8 and said.startswith(reason)
    out, _ = _cli("doctor", "--app", "aider", "--json", "--home", str(home))
    [report] = orjson.loads(out)
    assert list(report["damaged_lines"]) == [said] and not report["skipped_lines"]


def test_doctor_says_where_the_chat_histories_were_looked_for(tmp_path: Path) -> None:
    """`doctor` said Aider "looked in ~/.aider", a folder of aider's caches holding no
    session: the histories come from the home's `.aider.chat.history.md` and those of
    the project folders other agents recorded, and doctor says so."""
    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    project = tmp_path / "shop"
    project.mkdir()
    shutil.copy(home / aider.HISTORY, project / aider.HISTORY)
    write_claude_session(home, "5c5c5c5c-0000-4000-8000-000000000005", str(project))
    result = CliRunner().invoke(main, ["doctor", "--app", "aider", "--home", str(home)])
    lines = result.output.splitlines()
    assert result.exit_code == 0, result.output
    assert f"  looked in   {home / aider.HISTORY}" in lines
    assert (
        f"  and in      {aider.HISTORY} (or the file an .aider.conf.yml names) in the "
        "1 project folder other agents recorded, and its git root"
    ) in lines
    assert f"  looked in   {home / '.aider'}" not in lines


@pytest.mark.parametrize(
    ("report", "billed"),
    [
        ("2.4k sent, -5 received.", (2400, 0, 0)),
        ("-5 sent, 57 received.", (0, 57, 0)),
        ("12k sent, -5 cache hit, 212 received.", (12000, 212, 0)),
    ],
)
def test_a_negative_count_in_a_token_report_is_damage_said_by_its_line(
    report: str, billed: tuple[int, int, int], tmp_path: Path
) -> None:
    """aider prints the provider's counts as they came (`format_tokens(-5)` is "-5"): a
    report with a negative one was not read as usage at all, its other counts lost and
    nothing said; it is read, the negative count billed as 0 and said by its line."""
    home, path = _raw_home(
        tmp_path,
        b"\n# aider chat started at 2026-11-20 10:00:00\n\n#### fix it  \n\nDone.\n\n"
        + f"> Tokens: {report}  \n".encode(),
    )
    out, said = _cli("usage", "daily", "--json", "--verbose", "--home", str(home))
    assert "warning: read 1 line with an odd token count" in said, said
    assert f"{path}:8: odd token count" in said, said
    [row] = orjson.loads(out)
    assert (
        row["input_tokens"],
        row["output_tokens"],
        row["cache_read_tokens"],
    ) == billed


@pytest.mark.parametrize("broken", ["file", "pipe", "broken link"])
def test_a_broken_aider_folder_is_said_and_the_logs_are_still_listed(
    tmp_path: Path, broken: str
) -> None:
    """`~/.aider` (aider's caches folder, which marks an aider user) a file or a pipe in
    the folder's place: the home's log is still listed, and `doctor` names what stands
    there. Both hid every aider session, unsaid."""
    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "home"
    history(home, "2026-11-20 10:00:00")
    if broken == "file":
        (home / ".aider").write_text("not a folder\n")
    elif broken == "pipe":
        os.mkfifo(home / ".aider")
    else:
        (home / ".aider").symlink_to(tmp_path / "gone")
    runner = CliRunner()
    listed = runner.invoke(
        main, ["list", "--all", "--json", "--app", "aider", "--home", str(home)]
    )
    assert listed.exit_code == 0, listed.output
    assert [s["title"] for s in orjson.loads(listed.stdout)] == ["hello from home"]
    doctor = runner.invoke(
        main, ["doctor", "--json", "--app", "aider", "--home", str(home)]
    )
    assert doctor.exit_code == 0, doctor.output
    [app] = [a for a in orjson.loads(doctor.stdout) if a.get("app") == "aider"]
    why = {"file": "file in a folder's place", "pipe": "pipe"}.get(broken)
    assert app["passed_over"] == {why or folders.BROKEN_LINK: 1}
    assert app["sessions"] == 1
